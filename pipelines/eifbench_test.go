package pipelines

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// eifbenchRows reads report.jsonl rows of metric for subset "all", by model.
func eifbenchRows(t *testing.T, path, metric string) map[string]struct {
	Value      float64
	N, NFailed int
} {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]struct {
		Value      float64
		N, NFailed int
	}{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		var r struct {
			Bench, Model, Metric, Subset string
			SubInstructions              *float64 `json:"sub_instructions"`
			ConstraintsPerSub            *float64 `json:"constraints_per_sub"`
			Value                        float64
			N                            int
			NFailed                      int `json:"n_failed"`
		}
		if err := json.Unmarshal(s.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if r.Bench == "eifbench" && r.Metric == metric && r.Subset == "all" && r.SubInstructions == nil && r.ConstraintsPerSub == nil {
			out[r.Model] = struct {
				Value      float64
				N, NFailed int
			}{r.Value, r.N, r.NFailed}
		}
	}
	return out
}

// At skill 1 the simulated model meets every constraint and the simulated
// judge sees it: CLA = ILA = task level = 1, with the LLM judge stage run
// through the real judge client.
func TestEifBenchSkill1(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	cases := map[string][]string{"sample": nil}
	_, file, _, _ := runtime.Caller(0)
	official := filepath.Join(filepath.Dir(file), "..", "..", "shared", "reference", "eifbench", "party_first15.json")
	if _, err := os.Stat(official); err == nil {
		cases["official"] = []string{"--official", official}
	} else {
		t.Log("official sample absent (../shared/reference/eifbench/party_first15.json): only the sample set runs")
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			stdout := RunScript(t, "eifbench.sh", []string{"OPENAI_BASE_URL=" + url, "JUDGE_BASE_URL=" + url}, append([]string{"--out", out}, args...)...)
			if !strings.Contains(stdout, "Multi-party Dialogue ILA") {
				t.Errorf("the report lacks the Table 4 layout:\n%s", stdout)
			}
			wantTasks := map[string]int{"sample": 6, "official": 15}[name]
			for _, m := range []string{"CLA", "ILA", "task_level"} {
				got := eifbenchRows(t, filepath.Join(out, "report.jsonl"), m)
				if r, ok := got["llm-sim"]; !ok || r.Value != 1 || r.N != wantTasks || r.NFailed != 0 {
					t.Errorf("%s = %+v (all rows %v), want 1 over %d tasks, none failed", m, r, got, wantTasks)
				}
			}
			if r := eifbenchRows(t, filepath.Join(out, "report.jsonl"), "sentinel_replies")["llm-sim"]; r.Value != 0 || r.N == 0 {
				t.Errorf("sentinel_replies = %+v, want 0 of all checks", r)
			}
		})
	}
}

// A weaker model scores below 1 and ILA below CLA, judged by a separate
// (exact) judge model on the same server.
func TestEifBenchWeakModel(t *testing.T) {
	url := StartSim(t, "--model", "weak=0.6", "--model", "judge=1")
	out := t.TempDir()
	RunScript(t, "eifbench.sh", nil, "--base-url", url, "--model", "weak", "--judge-base-url", url, "--judge-model", "judge", "--out", out)
	cla := eifbenchRows(t, filepath.Join(out, "report.jsonl"), "CLA")["weak"]
	ila := eifbenchRows(t, filepath.Join(out, "report.jsonl"), "ILA")["weak"]
	if cla.Value < 0.3 || cla.Value > 0.8 || ila.Value >= cla.Value || cla.N != 6 {
		t.Errorf("skill 0.6: CLA %+v ILA %+v; want CLA in [0.3, 0.8] and ILA below it", cla, ila)
	}
}

// EifBench has no offline judge: --judge lexical is a usage error.
func TestEifBenchNoLexicalJudge(t *testing.T) {
	dir := t.TempDir()
	items := filepath.Join(dir, "checks.jsonl")
	f, err := os.Create(items)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"eifbench-plain_text-1#1.1","bench":"eifbench","parent":"eifbench-plain_text-1","gold":{"constraint":"c","sub":1,"subs":1},"segment":{"found":true,"text":"x"}}` + "\n")
	f.Close()
	var stderr strings.Builder
	cmd := exec.Command(Bin("judge"), "--judge", "lexical", items)
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "no offline approximation") {
		t.Errorf("judge --judge lexical on eifbench: %v, stderr %q; want exit 2 and a clear message", err, stderr.String())
	}
}
