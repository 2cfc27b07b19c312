package pipelines

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The five scripts at a small size, and their judge: LongGenBench and
// EifBench checks go to a judge that does not think (JUDGE_BASE_URL).
var reasoningRuns = []struct {
	script string
	args   []string
}{
	{"lifbench", []string{"--lengths", "1k"}},
	{"ifscale", []string{"--densities", "50,100", "--seeds", "0"}},
	{"longins", []string{"--lengths", "256", "--modes", "gist"}},
	{"longgenbench", []string{"--count", "1", "--scenarios", "diary"}},
	{"eifbench", nil},
}

// scores are a report's rows without what differs between any two runs:
// the run's id and time, and the measured latencies (IFScale's seconds).
func scores(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, r := range reportRows(t, filepath.Join(dir, "report.jsonl")) {
		if u := r["unit"]; u == "seconds" || u == "percent_per_second" {
			continue
		}
		delete(r, "run")
		delete(r, "created")
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	return out
}

// A model that thinks is scored on its answers: against llm-sim --reasoning
// (its trace inline, in harmony channels or in the reasoning field, and
// poisonous: it names what each scorer counts), every script reports the
// scores of the same model without a trace, with --reasoning-budget to
// make room for it, and the report counts the traces. The trace would
// change the scores if it were scored (--reasoning keep). Traces longer
// than max_tokens are cut: every failure is reasoning_unfinished, in every
// row, note and summary.
func TestReasoningModelsScoredOnTheirAnswers(t *testing.T) {
	shortParallel(t)
	const skill = "0.5" // below 1, so that a trace that names everything would raise some scores
	judge := StartSim(t, "--skill", "1")
	plain := StartSim(t, "--skill", skill)
	modes := []string{"inline", "harmony", "field"}
	if testing.Short() {
		modes = modes[:1]
	}
	sims := map[string]string{}
	for _, m := range modes {
		sims[m] = StartSim(t, "--skill", skill, "--reasoning", m)
	}
	cut := StartSim(t, "--skill", skill, "--reasoning", "inline", "--reasoning-len", "16500")
	env := []string{"JUDGE_BASE_URL=" + judge}
	for _, c := range reasoningRuns {
		t.Run(c.script, func(t *testing.T) {
			dir := t.TempDir()
			run := func(name, url string, args ...string) (string, string) {
				out := filepath.Join(dir, name)
				report := RunScript(t, c.script+".sh", env, append(append([]string{"--base-url", url, "--out", out}, c.args...), args...)...)
				return out, report
			}
			want, _ := run("plain", plain)
			for _, m := range modes {
				out, report := run(m, sims[m], "--reasoning-budget", "8192")
				if got, w := scores(t, out), scores(t, want); !slices.Equal(got, w) {
					t.Errorf("--reasoning %s: the scores differ from those without a trace: %s", m, firstDiff([]byte(strings.Join(w, "\n")), []byte(strings.Join(got, "\n"))))
				}
				if !strings.Contains(report, "Reasoning budget: max_tokens raised by 8192 tokens") {
					t.Errorf("--reasoning %s: the report does not note the budget:\n%s", m, report)
				}
				format := map[string]string{"inline": "think_tags", "harmony": "harmony", "field": "server"}[m]
				if c.script == "longgenbench" && m == "field" {
					continue // a completions prompt: no field for a trace, so none is sent
				}
				if !strings.Contains(report, "Reasoning (model llm-sim): ") || !strings.Contains(report, "held a reasoning trace ("+format+" ") {
					t.Errorf("--reasoning %s: the report does not count the %s traces:\n%s", m, format, report)
				}
			}
			kept, _ := run("keep", sims["inline"], "--reasoning-budget", "8192", "--reasoning", "keep")
			if slices.Equal(scores(t, kept), scores(t, want)) {
				t.Error("--reasoning keep: the traces changed no score; they are not poisonous")
			}
			out, report := run("cut", cut, "--max-failures", "100%")
			failed := 0
			for _, r := range reportRows(t, filepath.Join(out, "report.jsonl")) {
				failed += int(r["n_failed"].(float64))
				if r["n_failed"] != r["n_reasoning_unfinished"] {
					t.Errorf("cut traces: row %v counts n_failed %v, n_reasoning_unfinished %v", r["metric"], r["n_failed"], r["n_reasoning_unfinished"])
				}
			}
			if failed == 0 || !strings.Contains(report, "Reasoning unfinished (model llm-sim): ") {
				t.Errorf("cut traces: %d failures, report:\n%s", failed, report)
			}
		})
	}
}
