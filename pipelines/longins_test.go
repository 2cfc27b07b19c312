package pipelines

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
				t.Errorf("%s at %s, depth %v: %v%% found, want 100", r["mode"], r["length"], r["depth"], r["value"])
			}
		}
		if want := map[bool]string{true: "count", false: "percent"}[r["metric"] == "empty_gold"]; r["n_failed"] != 0.0 || r["unit"] != want {
			t.Errorf("%s at %s: n_failed %v, unit %v", r["mode"], r["length"], r["n_failed"], r["unit"])
		}
	}
	if cells != 6 {
		t.Errorf("%d F1 cells, want 6 (3 modes x 2 lengths)", cells)
	}
}

// --official imports an official exam file through the whole script. The
// simulator cannot grade the official tasks, so only the shape of the
// report is checked: one GIST 256 cell over the file's 1,419 exams.
func TestLongInsPipelineOfficial(t *testing.T) {
	official := filepath.Join("..", "..", "shared", "reference", "longins", "GIST_256.json")
	if _, err := os.Stat(official); err != nil {
		t.Skipf("official LongIns file not found at %s (only the ifkit workspace has it)", official)
	}
	url := StartSim(t, "--skill", "1")
	out := t.TempDir()
	RunScript(t, "longins.sh", []string{"OPENAI_BASE_URL=" + url}, "--official", official, "-j", "32", "--out", out)
	cells := 0
	for _, r := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		if r["metric"] != "F1" {
			continue
		}
		cells++
		if r["mode"] != "gist" || r["length"] != "256" || r["n"] != 1419.0 {
			t.Errorf("F1 row %v, want gist at 256 over 1419 exams", r)
		}
	}
	if cells != 1 {
		t.Errorf("%d F1 cells, want 1", cells)
	}
}

// --official imports files as they are: a generation flag given with it
// would be ignored, so it is refused (exit 2) before any file is read.
func TestGenContextOfficialRefusesGenerationFlags(t *testing.T) {
	for _, args := range [][]string{
		{"lifbench", "--official", "list_input.json", "--lengths", "4k"},
		{"lifbench", "--official", "list_input.json", "--corpus", "c.jsonl"},
		{"longins", "--official", "GIST_256.json", "--modes", "list"},
		{"longins", "--official", "GIST_256.json", "--error-rate", "0.2"},
	} {
		cmd := exec.Command(Bin("gen-context"), args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "does not apply to --official") {
			t.Errorf("gen-context %v: %v, stderr %q; want exit 2 refusing the flag", args, err, stderr.String())
		}
	}
}
