package pipelines

import (
	"fmt"
	"path/filepath"
	"testing"
)

// At skill 1 the simulated model includes every keyword: accuracy 100 at
// every density, no errors, nothing rejected or failed.
func TestIFScalePipeline(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	out := t.TempDir()
	RunScript(t, "ifscale.sh", []string{"OPENAI_BASE_URL=" + url}, "--densities", "10,50,500", "--seeds", "0,1", "--out", out)
	seen := map[string]bool{}
	for _, r := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		if r["bench"] != "ifscale" || r["model"] != "llm-sim" {
			t.Fatalf("unexpected row %v", r)
		}
		d := fmt.Sprint(r["density"])
		switch r["metric"] {
		case "accuracy", "accuracy_all":
			seen[d] = true
			if r["value"] != 100.0 || r["n"] != 2.0 {
				t.Errorf("density %s: %s %v over %v replies, want 100 over 2", d, r["metric"], r["value"], r["n"])
			}
		case "stdev", "rejected":
			if r["value"] != 0.0 {
				t.Errorf("density %s: %s = %v, want 0", d, r["metric"], r["value"])
			}
		}
		if r["n_failed"] != 0.0 {
			t.Errorf("density %s: %s has n_failed %v", d, r["metric"], r["n_failed"])
		}
	}
	if len(seen) != 3 {
		t.Errorf("accuracy for densities %v, want 10, 50 and 500", seen)
	}
}

// Requests that end in an error are counted as failed samples, apart from
// the accuracy (which stays 100 over the replies that came back). The rows
// are summed over models: an error record names its model only when
// infer-batch wrote one, else it is counted under "unknown".
func TestIFScalePipelineCountsFailures(t *testing.T) {
	url := StartSim(t, "--skill", "1", "--fail-rate", "0.5", "--faults", "500=1", "--seed", "3")
	out := t.TempDir()
	RunScript(t, "ifscale.sh", []string{"OPENAI_BASE_URL=" + url, "INFER_ARGS=--max-retries 0"},
		"--densities", "10,20", "--seeds", "0,1,2", "--max-failures", "100%", "--out", out)
	answered, failed := map[string]float64{}, map[string]float64{}
	for _, r := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		d := fmt.Sprint(r["density"])
		switch r["metric"] {
		case "accuracy_all":
			answered[d] += r["n"].(float64)
			failed[d] += r["n_failed"].(float64)
			if r["n"] != 0.0 && r["value"] != 100.0 {
				t.Errorf("density %s: accuracy %v", d, r["value"])
			}
		}
	}
	total := 0.0
	for _, d := range []string{"10", "20"} {
		if answered[d]+failed[d] != 3 {
			t.Errorf("density %s: %v answered + %v failed, want 3 samples", d, answered[d], failed[d])
		}
		total += failed[d]
	}
	if total == 0 {
		t.Error("no sample failed at --fail-rate 0.5")
	}
}

// Rerunning the script on the same output directory resumes: the replies
// already there are kept and nothing is asked again, so a second run
// against an endpoint that fails every request still reports the first
// run's results (and exits 0). A rerun with fewer requests reports only
// those: infer-batch --resume drops the replies to requests no longer asked.
func TestIFScalePipelineResumes(t *testing.T) {
	out := t.TempDir()
	good := []string{"OPENAI_BASE_URL=" + StartSim(t, "--skill", "1"), "INFER_ARGS=--max-retries 0"}
	broken := []string{"OPENAI_BASE_URL=" + StartSim(t, "--skill", "1", "--fail-rate", "1"), "INFER_ARGS=--max-retries 0"}
	args := []string{"--densities", "10,20", "--seeds", "0", "--out", out}
	RunScript(t, "ifscale.sh", good, args...)
	RunScript(t, "ifscale.sh", broken, args...)
	rows := reportRows(t, filepath.Join(out, "report.jsonl"))
	RunScript(t, "ifscale.sh", good, "--densities", "10", "--seeds", "0", "--out", out)
	for _, r := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		if r["density"] != 10.0 {
			t.Errorf("after a rerun with density 10 only, the report still has %v", r)
		}
	}
	for _, r := range rows {
		switch r["metric"] {
		case "accuracy":
			if r["value"] != 100.0 || r["n"] != 1.0 {
				t.Errorf("density %v after the rerun: accuracy %v over %v replies, want 100 over 1", r["density"], r["value"], r["n"])
			}
		}
		if r["n_failed"] != 0.0 {
			t.Errorf("density %v after the rerun: %v failed; the rerun asked the endpoint again", r["density"], r["n_failed"])
		}
	}
}
