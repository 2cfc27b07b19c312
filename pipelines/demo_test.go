package pipelines

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// make demo does what demo.sh and the README say: all five benchmarks end to
// end against llm-sim from a clean PATH, every report saying it came from the
// test double, LIFBench scores that fall with length for both models, and
// out/report.html with every benchmark's figures, both simulated models in
// them and in its explorer, and a report.html beside each report.md.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the demo runs every benchmark for two models; make test runs it")
	}
	co := checkout(t, t.TempDir())
	cmd := exec.Command("./pipelines/demo.sh", "out")
	cmd.Dir, cmd.Env = co, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + co}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	out := filepath.Join(co, "out")
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bench := range []string{"lifbench", "ifscale", "longins", "longgenbench", "eifbench"} {
		for _, model := range []string{"sim-strong", "sim-weak"} {
			if !strings.Contains(string(summary), "## "+bench+"/"+model+"/report.md") {
				t.Errorf("summary.md lacks %s/%s", bench, model)
			}
		}
	}
	if n := strings.Count(string(summary), "These replies came from llm-sim"); n < 10 {
		t.Errorf("summary.md notes llm-sim %d times, want it under every table", n)
	}
	for _, model := range []string{"sim-strong", "sim-weak"} {
		ars := map[string]float64{}
		for _, r := range reportRows(t, filepath.Join(out, "lifbench", model, "report.jsonl")) {
			if r["metric"] == "ARS" && r["task"] == "overall" {
				ars[r["length"].(string)] = r["value"].(float64)
			}
		}
		if !(ars["ctx1k"] > ars["ctx2k"] && ars["ctx2k"] > ars["4k"]) {
			t.Errorf("%s: LIFBench ARS by length %v, want falling from ctx1k to ctx2k to 4k", model, ars)
		}
	}

	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"lifbench-ars-length", "ifscale-accuracy", "longins-depth-heat", "longgenbench-position", "eifbench-constraints"} {
		if !strings.Contains(string(page), `<figure id="`+id+`"`) {
			t.Errorf("out/report.html has no figure %s", id)
		}
	}
	for _, m := range []string{"sim-strong", "sim-weak"} {
		if !strings.Contains(string(page), "<th>"+m+"</th>") {
			t.Errorf("out/report.html has no numbers of %s", m)
		}
	}
	for _, bench := range []string{"lifbench", "ifscale", "longins", "longgenbench", "eifbench"} {
		md, err := os.ReadFile(filepath.Join(out, bench, "compare.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), "| sim-strong |") || !strings.Contains(string(md), "| sim-weak |") || !strings.Contains(string(md), ": paired comparison with sim-weak") {
			t.Errorf("%s/compare.md does not put both models side by side and compare them:\n%s", bench, md)
		}
		if _, err := os.Stat(filepath.Join(out, bench, "flips.jsonl")); err != nil {
			t.Errorf("%s: no flips.jsonl: %v", bench, err)
		}
	}
	// The page holds the items of both models, and the run diff pairs them.
	idx := explorerIndex(t, page)
	per := map[string]int{}
	for _, it := range idx.Items {
		per[it.M]++
	}
	if per["sim-strong"] == 0 || per["sim-strong"] != per["sim-weak"] {
		t.Errorf("the explorer holds %v items per model, want both models' answers to the same items", per)
	}
	if len(idx.Flips) != 1 || len(idx.Flips[0].Pairs) == 0 || idx.Flips[0].A != "sim-strong" || idx.Flips[0].B != "sim-weak" {
		t.Errorf("the run diff: %+v, want sim-strong vs sim-weak with flips", idx.Flips)
	}
	mds, _ := filepath.Glob(filepath.Join(out, "*", "*", "report.md"))
	if len(mds) != 10 {
		t.Errorf("%d report.md files, want 10 (five benchmarks, two models)", len(mds))
	}
	for _, md := range mds {
		if _, err := os.Stat(filepath.Join(filepath.Dir(md), "report.html")); err != nil {
			t.Errorf("no report.html beside %s", md)
		}
	}
}

// explorerIndex reads the index of a report page's item explorer: the
// items' models and the run diff's pairs (lib/explore).
func explorerIndex(t *testing.T, page []byte) (idx struct {
	Items []struct {
		M string `json:"m"`
	} `json:"items"`
	Flips []struct {
		A, B  string
		Pairs [][2]int
	} `json:"flips"`
}) {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/x-ifkit-gzip-base64" id="x-index">([^<]*)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("the page has no explorer index")
	}
	gz, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(zr).Decode(&idx); err != nil {
		t.Fatal(err)
	}
	return idx
}
