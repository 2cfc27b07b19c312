package pipelines

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLIFBenchSkillOne runs pipelines/lifbench.sh against llm-sim at full
// skill: every task must score ARS 1.000 (correct answers get full marks).
func TestLIFBenchSkillOne(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	out := t.TempDir()
	md := RunScript(t, "lifbench.sh", []string{"OPENAI_BASE_URL=" + url}, "--lengths", "1k,2k", "--out", out, "-j", "8")
	if !strings.Contains(md, "LIFBench ARS by task") {
		t.Errorf("report.md lacks the task table:\n%s", md)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ars := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if r["metric"] != "ARS" {
			continue
		}
		ars++
		if v, _ := r["value"].(float64); math.Abs(v-1) > 1e-9 {
			t.Errorf("ARS %v/%v = %v, want 1", r["task"], r["length"], r["value"])
		}
		if r["task"] == "overall" && r["length"] == "all" {
			if r["n"] != float64(2*467) || r["n_failed"] != 0.0 {
				t.Errorf("overall row %v: want n 934 and n_failed 0", r)
			}
		}
	}
	// 11 tasks + overall, for all lengths and for each of the two.
	if ars != 3*12 {
		t.Errorf("%d ARS rows, want 36", ars)
	}
}

// Bad input: exit 3 with a message naming the record; an infer error is
// scored 0 and counted as failed.
func TestLIFBenchBadInput(t *testing.T) {
	for _, c := range []struct{ tool, line, want string }{
		{"judge", `{"id":"r-unknown","bench":"lifbench","task":"poem","gold":{},"response":{"text":"a"}}`, `record "r-unknown": unknown lifbench task "poem"`},
		{"expand-templates", `{"id":"c-empty","bench":"lifbench","context":{"scenario":"list","text":"1. a"}}`, `record "c-empty": list context has 0 elements`},
	} {
		cmd := exec.Command(Bin(c.tool))
		cmd.Stdin = strings.NewReader(c.line + "\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: err %v, stderr %q; want exit 3 and %q", c.tool, err, stderr.String(), c.want)
		}
	}
	cmd := exec.Command("bash", "-c", Bin("judge")+" | "+Bin("aggregate-ifs")+" --format jsonl")
	cmd.Stdin = strings.NewReader(`{"id":"e1","bench":"lifbench","task":"qa","model":"m","group":{"length":"4k"},"error":{"stage":"infer-batch","kind":"http","message":"503"}}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`"metric":"ARS","value":0,"ci_low":null,"ci_high":null,"unit":"ratio","n":1,"n_failed":1,"n_truncated":0,"cut_check":"","n_reasoning_unfinished":0,"run":"[0-9a-f]{16}","ifkit_version":"[^"]+","created":"[^"]+","ci_level":0.95,"ci_method":"too few units","ci_unit":"context","n_units":1,"length":"all","task":"overall"`).Match(out) {
		t.Errorf("the failed record is not counted:\n%s", out)
	}
}

// aggregate-ifs --import lifbench-scores reproduces the paper's overall ARS
// from the official score CSVs (the numbers are checked one by one in
// lib/lifbench).
func TestLIFBenchImportScores(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "reference", "lifbench", "scores")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("official score CSVs not found at %s (only the ifkit workspace has them)", dir)
	}
	out, err := exec.Command(Bin("aggregate-ifs"), "--import", "lifbench-scores", "--format", "md", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| gpt-4o-2024-08-06 | 0.797 | 0.882 | 0.834 | 0.881 | 0.836 | 0.740 | 0.823 | 0.749 | 0.825 | 0.719 | 0.588 | 0.758 |",
		"| Meta-Llama-3.1-8B-Instruct | 0.154 | 0.120 | 0.199 |"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
