package pipelines

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// The xargs recipe and every scheduler's array template split one request
// file into parts whose union is exactly the input, the same parts every way,
// and a rerun resumes.
func TestShardRecipes(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	dir := t.TempDir()
	requests := filepath.Join(dir, "requests.jsonl.zst")
	gen := exec.Command("bash", "-c", "gen-context ifscale --densities 10,20,30,40 --seeds 0,1,2,3 | expand-templates --compress zstd -o "+requests)
	gen.Env = Env()
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("making requests: %v\n%s", err, out)
	}
	want := ids(t, requests)

	xargsOut := filepath.Join(dir, "xargs")
	RunScript(t, "xargs-shards.sh", []string{"OPENAI_BASE_URL=" + url, "JOBS=4"}, requests, xargsOut, "3", "2")
	xargsParts := parts(t, xargsOut, 3, want)

	// Each scheduler's template, run as its array of 3 would run it (Grid
	// Engine and LSF count tasks from 1; PBS does not say the array's size;
	// PBS and LSF start in the submission folder, a checkout, whose lib.sh
	// they source), writes the same parts, and refuses to run outside an
	// array.
	co := checkout(t, dir)
	for _, tpl := range []struct {
		script string
		task   func(i int) []string
		log    string // task 1's log under OUT/logs
	}{
		{"slurm/infer-array.sbatch", func(i int) []string {
			return []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_JOB_ID=42"}
		}, "42_1.attempt0.log"},
		{"pbs/infer-array.pbs", func(i int) []string {
			return []string{fmt.Sprintf("PBS_ARRAY_INDEX=%d", i), "PBS_ARRAY_ID=42[].pbs01", "SHARDS=3", "PBS_O_WORKDIR=" + co}
		}, "42_1.log"},
		{"lsf/infer-array.lsf", func(i int) []string {
			return []string{fmt.Sprintf("LSB_JOBINDEX=%d", i+1), "LSB_JOBINDEX_END=3", "LSB_JOBID=42", "LS_SUBCWD=" + co}
		}, "42_2.log"},
		{"gridengine/infer-array.sge", func(i int) []string {
			return []string{fmt.Sprintf("SGE_TASK_ID=%d", i+1), "SGE_TASK_FIRST=1", "SGE_TASK_LAST=3", "SGE_TASK_STEPSIZE=1", "JOB_ID=42"}
		}, "42_2.log"},
	} {
		out := filepath.Join(dir, filepath.Dir(tpl.script))
		common := []string{"OPENAI_BASE_URL=" + url, "REQUESTS=" + requests, "OUT=" + out, "JOBS=4"}
		for i := range 3 {
			RunScript(t, tpl.script, append(slices.Clip(common), tpl.task(i)...))
		}
		got := parts(t, out, 3, want)
		for i := range xargsParts {
			if !slices.Equal(xargsParts[i], got[i]) {
				t.Errorf("part %d differs between xargs %v and %s %v", i, xargsParts[i], tpl.script, got[i])
			}
		}
		if log, _ := os.ReadFile(filepath.Join(out, "logs", tpl.log)); !strings.Contains(string(log), "shard 1/3") {
			t.Errorf("%s: OUT/logs/%s does not hold shard 1's log:\n%s", tpl.script, tpl.log, log)
		}
		cmd := exec.Command("bash", tpl.script)
		cmd.Env = Env(append(slices.Clip(common), "SGE_TASK_ID=undefined", "LSB_JOBINDEX=0")...)
		if o, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(o), "not inside") {
			t.Errorf("%s outside an array: %v, want exit 2 saying it is not inside an array task\n%s", tpl.script, err, o)
		}
	}

	// The parts are a unit: with their manifests, judge reads the folder as
	// one input, and refuses it while a part is missing.
	judged := filepath.Join(dir, "judged.jsonl")
	if out, err := exec.Command(Bin("judge"), "-o", judged, xargsOut+"/").CombinedOutput(); err != nil {
		t.Fatalf("judge %s/: %v\n%s", xargsOut, err, out)
	}
	if got := ids(t, judged); !slices.Equal(got, want) {
		t.Errorf("judge over the xargs parts gave %d ids, want the %d requests once each", len(got), len(want))
	}
	p1 := filepath.Join(xargsOut, "part-00001-of-00003.jsonl.zst")
	moved := filepath.Join(dir, "moved")
	os.Rename(p1, moved)
	out, err := exec.Command(Bin("judge"), xargsOut+"/").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(string(out), "part-00001-of-00003") {
		t.Errorf("judge over the xargs parts with part 1 gone: %v, want exit 3 naming it\n%s", err, out)
	}
	os.Rename(moved, p1)

	// A rerun resumes: every part keeps its records, answered once.
	RunScript(t, "xargs-shards.sh", []string{"OPENAI_BASE_URL=" + url, "JOBS=4"}, requests, xargsOut, "3", "2")
	again := parts(t, xargsOut, 3, want)
	for i := range again {
		if !slices.Equal(again[i], xargsParts[i]) {
			t.Errorf("part %d after a rerun: %v, want %v", i, again[i], xargsParts[i])
		}
	}
}

// parts reads the n part files of dir and checks that together they hold
// every wanted id exactly once, each with a response.
func parts(t *testing.T, dir string, n int, want []string) [][]string {
	t.Helper()
	var all []string
	out := make([][]string, n)
	for i := range n {
		out[i] = ids(t, filepath.Join(dir, fmt.Sprintf("part-%05d-of-%05d.jsonl.zst", i, n)))
		all = append(all, out[i]...)
	}
	slices.Sort(all)
	if !slices.Equal(all, want) {
		t.Fatalf("parts of %s hold %d ids %v, want each of %d exactly once", dir, len(all), all, len(want))
	}
	return out
}

// ids lists the sorted ids of a JSONL file, failing on records without a response.
func ids(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	eachRecord(t, path, func(rec *record.Record) {
		if filepath.Base(path) != "requests.jsonl.zst" && !rec.Has("response") {
			t.Errorf("%s: record %s has no response", path, rec.ID())
		}
		out = append(out, rec.ID())
	})
	slices.Sort(out)
	return out
}
