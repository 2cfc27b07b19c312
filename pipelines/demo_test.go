package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make demo does what demo.sh and the README say: all five benchmarks end to
// end against llm-sim from a clean PATH, every report saying it came from the
// test double, and LIFBench scores that fall with length for both models.
func TestDemo(t *testing.T) {
	co := checkout(t, t.TempDir())
	cmd := exec.Command("./pipelines/demo.sh", "out")
	cmd.Dir, cmd.Env = co, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + co}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	summary, err := os.ReadFile(filepath.Join(co, "out", "summary.md"))
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
		for _, r := range reportRows(t, filepath.Join(co, "out", "lifbench", model, "report.jsonl")) {
			if r["metric"] == "ARS" && r["task"] == "overall" {
				ars[r["length"].(string)] = r["value"].(float64)
			}
		}
		if !(ars["ctx1k"] > ars["ctx2k"] && ars["ctx2k"] > ars["4k"]) {
			t.Errorf("%s: LIFBench ARS by length %v, want falling from ctx1k to ctx2k to 4k", model, ars)
		}
	}
}
