package pipelines

import (
	"path/filepath"
	"testing"
)

// At skill 1 the simulated model grades the project's checkable tasks
// exactly: F1 100 in every mode and at every length.
func TestLongInsPipeline(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	out := t.TempDir()
	RunScript(t, "longins.sh", []string{"OPENAI_BASE_URL=" + url}, "--lengths", "256,2048", "--modes", "gist,list,limt", "--out", out)
	cells := 0
	for _, r := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		if r["bench"] != "longins" || r["model"] != "llm-sim" {
			t.Fatalf("unexpected row %v", r)
		}
		switch r["metric"] {
		case "F1":
			cells++
			if r["value"] != 100.0 || r["n"] != 11.0 {
				t.Errorf("%s at %s: F1 %v over %v exams, want 100 over 11", r["mode"], r["length"], r["value"], r["n"])
			}
		case "depth_accuracy":
			if r["value"] != 100.0 {
				t.Errorf("%s at %s, depth %s: %v%% found, want 100", r["mode"], r["length"], r["depth"], r["value"])
			}
		case "failed":
			if r["value"] != 0.0 {
				t.Errorf("%s at %s: %v failed", r["mode"], r["length"], r["value"])
			}
		}
	}
	if cells != 6 {
		t.Errorf("%d F1 cells, want 6 (3 modes x 2 lengths)", cells)
	}
}
