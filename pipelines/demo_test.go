package pipelines

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// make demo leaves out/report.html with every benchmark's figures, both
// simulated models in them, and a report.html beside each report.md.
func TestDemoReport(t *testing.T) {
	out := t.TempDir()
	RunScript(t, "demo.sh", nil, out)
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
