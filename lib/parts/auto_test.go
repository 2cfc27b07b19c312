package parts

import (
	"strings"
	"testing"
)

// TestAutoSchedulers: every scheduler's array variables, by the documented
// meaning of each (see schedulers): which index is shard 0, what says N, what
// a task outside an array sees, and what happens when two disagree.
func TestAutoSchedulers(t *testing.T) {
	sixteen := folder(t, "0/16", "1/16")
	tests := []struct {
		name string
		env  string // NAME=VALUE, blank-separated
		dir  string
		i, n int
		out  bool   // outside any array: ok is false
		says string // in the note, or in the error when bad
		bad  bool
	}{
		// Kubernetes: 0-based, N never from the environment.
		{name: "kubernetes with SHARDS", env: "JOB_COMPLETION_INDEX=3 SHARDS=8", i: 3, n: 8, says: "Kubernetes task JOB_COMPLETION_INDEX=3, N from SHARDS/--shards 8"},
		{name: "kubernetes, N from the parts", env: "JOB_COMPLETION_INDEX=15", dir: sixteen, i: 15, n: 16, says: "N from the parts already in"},
		{name: "kubernetes without N", env: "JOB_COMPLETION_INDEX=3", bad: true, says: "set SHARDS=N"},
		{name: "kubernetes index past N", env: "JOB_COMPLETION_INDEX=8 SHARDS=8", bad: true, says: "task id JOB_COMPLETION_INDEX=8 is not a shard of 8"},
		// PBS: 0-based (-J 0-15), N never from the environment.
		{name: "pbs first subjob", env: "PBS_ARRAY_INDEX=0 SHARDS=4 PBS_ARRAY_ID=12[].srv", i: 0, n: 4, says: "PBS task PBS_ARRAY_INDEX=0 of job 12[].srv"},
		{name: "pbs re-run into the folder", env: "PBS_ARRAY_INDEX=15", dir: sixteen, i: 15, n: 16},
		{name: "pbs not a number", env: "PBS_ARRAY_INDEX=x SHARDS=4", bad: true, says: `PBS_ARRAY_INDEX="x" is not an integer`},
		// LSF: 1-based; LSB_JOBINDEX=0 outside arrays; END is the largest index.
		{name: "lsf first element", env: "LSB_JOBINDEX=1 LSB_JOBINDEX_END=4 LSB_JOBID=9", i: 0, n: 4, says: "LSF task LSB_JOBINDEX=1 (shard 0) of job 9, N from the array [1-4] (LSB_JOBINDEX_END=4)"},
		{name: "lsf last element", env: "LSB_JOBINDEX=4 LSB_JOBINDEX_END=4 LSB_JOBINDEX_STEP=1", i: 3, n: 4},
		{name: "lsf outside an array", env: "LSB_JOBINDEX=0 LSB_JOBINDEX_END=0", out: true},
		{name: "lsf with a step says no N", env: "LSB_JOBINDEX=3 LSB_JOBINDEX_END=15 LSB_JOBINDEX_STEP=2", bad: true, says: "the array is not 1..N as a whole"},
		{name: "lsf re-run keeping the top index", env: "LSB_JOBINDEX=2 LSB_JOBINDEX_END=16", dir: sixteen, i: 1, n: 16},
		{name: "lsf re-run of one element into the folder", env: "LSB_JOBINDEX=5 LSB_JOBINDEX_END=5", dir: sixteen, bad: true, says: "LSB_JOBINDEX_END=5) means 5 shards, but " + sixteen + " holds parts of 16"},
		{name: "lsf re-run of one element with SHARDS", env: "LSB_JOBINDEX=5 LSB_JOBINDEX_END=5 SHARDS=16", dir: sixteen, i: 4, n: 16},
		{name: "lsf index past N", env: "LSB_JOBINDEX=17 SHARDS=16", bad: true, says: "LSB_JOBINDEX=17 (shard 16) is not a shard of 16 (from SHARDS/--shards 16): LSF array task ids 1..N"},
		// Grid Engine: 1-based; "undefined" outside arrays.
		{name: "grid engine first task", env: "SGE_TASK_ID=1 SGE_TASK_FIRST=1 SGE_TASK_LAST=4 SGE_TASK_STEPSIZE=1 JOB_ID=77", i: 0, n: 4, says: "Grid Engine task SGE_TASK_ID=1 (shard 0) of job 77, N from the array 1-4"},
		{name: "grid engine last task", env: "SGE_TASK_ID=4 SGE_TASK_FIRST=1 SGE_TASK_LAST=4 SGE_TASK_STEPSIZE=1", i: 3, n: 4},
		{name: "grid engine outside an array", env: "SGE_TASK_ID=undefined SGE_TASK_FIRST=undefined SGE_TASK_LAST=undefined SGE_TASK_STEPSIZE=undefined", out: true},
		{name: "grid engine re-run of one task", env: "SGE_TASK_ID=2 SGE_TASK_FIRST=2 SGE_TASK_LAST=2 SGE_TASK_STEPSIZE=1", dir: sixteen, i: 1, n: 16},
		{name: "grid engine re-run without N", env: "SGE_TASK_ID=2 SGE_TASK_FIRST=2 SGE_TASK_LAST=2 SGE_TASK_STEPSIZE=1", bad: true, says: "set SHARDS=N"},
		{name: "grid engine one task is no array", env: "SGE_TASK_ID=1 SGE_TASK_FIRST=1 SGE_TASK_LAST=1 SGE_TASK_STEPSIZE=1", bad: true, says: "set SHARDS=N"},
		{name: "grid engine stepped range", env: "SGE_TASK_ID=3 SGE_TASK_FIRST=1 SGE_TASK_LAST=5 SGE_TASK_STEPSIZE=2 SHARDS=6", i: 2, n: 6},
		{name: "grid engine array against the folder", env: "SGE_TASK_ID=1 SGE_TASK_FIRST=1 SGE_TASK_LAST=4 SGE_TASK_STEPSIZE=1", dir: sixteen, bad: true, says: "the array 1-4 means 4 shards, but " + sixteen + " holds parts of 16"},
		{name: "grid engine task 0", env: "SGE_TASK_ID=0 SHARDS=4", bad: true, says: "SGE_TASK_ID=0: Grid Engine array task ids are 1..N"},
		// AWS Batch: 0-based, the size in the environment.
		{name: "aws first child", env: "AWS_BATCH_JOB_ARRAY_INDEX=0 AWS_BATCH_JOB_ARRAY_SIZE=4", i: 0, n: 4, says: "N from AWS_BATCH_JOB_ARRAY_SIZE=4"},
		{name: "aws last child", env: "AWS_BATCH_JOB_ARRAY_INDEX=3 AWS_BATCH_JOB_ARRAY_SIZE=4", i: 3, n: 4},
		{name: "aws without the size", env: "AWS_BATCH_JOB_ARRAY_INDEX=2 SHARDS=8", i: 2, n: 8},
		{name: "aws array against the folder", env: "AWS_BATCH_JOB_ARRAY_INDEX=2 AWS_BATCH_JOB_ARRAY_SIZE=4", dir: sixteen, bad: true, says: "holds parts of 16"},
		// Google Cloud Batch: 0..BATCH_TASK_COUNT-1, even for one task.
		{name: "cloud batch one task is the whole", env: "BATCH_TASK_INDEX=0 BATCH_TASK_COUNT=1", i: 0, n: 1},
		{name: "cloud batch", env: "BATCH_TASK_INDEX=5 BATCH_TASK_COUNT=8", i: 5, n: 8, says: "Google Cloud Batch task BATCH_TASK_INDEX=5, N from BATCH_TASK_COUNT=8"},
		{name: "cloud batch one task of SHARDS", env: "BATCH_TASK_INDEX=0 BATCH_TASK_COUNT=1 SHARDS=16", dir: sixteen, i: 0, n: 16},
		// Two schedulers' variables at once.
		{name: "two schedulers, two shards", env: "SLURM_ARRAY_TASK_ID=3 SGE_TASK_ID=2 SHARDS=8", bad: true, says: "SLURM_ARRAY_TASK_ID=3 (Slurm) and SGE_TASK_ID=2 (shard 1) (Grid Engine) name different shards"},
		{name: "two schedulers, two sizes", env: "SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 AWS_BATCH_JOB_ARRAY_INDEX=3 AWS_BATCH_JOB_ARRAY_SIZE=8", bad: true, says: "the array 0-3 (Slurm) means 4 shards but AWS_BATCH_JOB_ARRAY_SIZE=8 (AWS Batch) means 8"},
		{name: "two schedulers agree", env: "JOB_COMPLETION_INDEX=2 SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4", i: 2, n: 4, says: "N from the array 0-3"},
		{name: "the size from the second", env: "JOB_COMPLETION_INDEX=2 BATCH_TASK_INDEX=2 BATCH_TASK_COUNT=4", i: 2, n: 4, says: "Kubernetes task JOB_COMPLETION_INDEX=2, N from BATCH_TASK_COUNT=4"},
		{name: "none", env: "SHARDS=4", out: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for _, kv := range strings.Fields(tt.env) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			i, n, note, ok, err := Auto(func(k string) string { return env[k] }, 0, tt.dir)
			switch {
			case tt.bad:
				if err == nil || !strings.Contains(err.Error(), tt.says) {
					t.Fatalf("Auto = %d/%d %q, %v; want an error with %q", i, n, note, err, tt.says)
				}
			case err != nil:
				t.Fatalf("Auto: %v", err)
			case tt.out:
				if ok {
					t.Fatalf("Auto = %d/%d %q, in an array; want outside", i, n, note)
				}
			case !ok || i != tt.i || n != tt.n || !strings.Contains(note, tt.says):
				t.Fatalf("Auto = %d/%d (in an array %v) %q; want %d/%d saying %q", i, n, ok, note, tt.i, tt.n, tt.says)
			}
		})
	}
}
