package parts

import (
	"fmt"
	"strconv"
)

// Auto resolves --shard auto inside a Slurm array task. A task's id is its
// shard number (0..N-1), so re-running some tasks (--array=1,15) rebuilds
// exactly those shards. N comes from, in order: the SHARDS variable or
// shards (--shards, 0 when unset); the array itself when it is the contiguous range 0..N-1 of
// more than one task; the parts already in dir. When those disagree the task
// refuses rather than write a part of another split. ok is false outside an
// array task.
func Auto(getenv func(string) string, shards int, dir string) (i, n int, note string, ok bool, err error) {
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return x, true, nil
	}
	id, hasID, err := num("SLURM_ARRAY_TASK_ID")
	if err != nil || !hasID {
		return 0, 0, "", false, err
	}
	envN, hasEnv, err := num("SHARDS")
	switch {
	case err != nil:
		return 0, 0, "", true, err
	case hasEnv && envN < 1, shards < 0:
		return 0, 0, "", true, fmt.Errorf("--shard auto: the number of shards must be at least 1 (SHARDS=%q, --shards %d)", getenv("SHARDS"), shards)
	case hasEnv && shards > 0 && envN != shards:
		return 0, 0, "", true, fmt.Errorf("--shard auto: SHARDS=%d and --shards %d disagree", envN, shards)
	case hasEnv:
		shards = envN
	}
	var vals [4]int
	var has [4]bool
	for k, name := range []string{"SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"} {
		if vals[k], has[k], err = num(name); err != nil {
			return 0, 0, "", true, err
		}
	}
	count, lo, hi, step := vals[0], vals[1], vals[2], vals[3]
	if !has[3] || step < 1 {
		step = 1
	}
	if !has[2] && has[0] {
		hi = lo + (count-1)*step
	}
	contiguous := has[0] && count > 1 && lo == 0 && step == 1 && hi == count-1
	folder, ferr := FolderCount(dir)
	if dir == "" {
		folder, ferr = 0, nil
	}
	from := ""
	switch {
	case shards > 0:
		n, from = shards, fmt.Sprintf("SHARDS/--shards %d", shards)
	case contiguous:
		n, from = count, fmt.Sprintf("the array 0-%d", count-1)
	case ferr != nil:
		return 0, 0, "", true, fmt.Errorf("--shard auto: %v", ferr)
	case folder > 0:
		n, from = folder, fmt.Sprintf("the parts already in %s", dir)
	default:
		return 0, 0, "", true, fmt.Errorf("--shard auto: the array (task ids %d-%d, %d tasks) is not 0..N-1 and %s holds no parts, so nothing says the number of shards N: set SHARDS=N (or --shards N) to the first run's N", lo, hi, count, orNone(dir))
	}
	if ferr != nil {
		return 0, 0, "", true, fmt.Errorf("--shard auto: %v", ferr)
	}
	if folder > 0 && folder != n {
		return 0, 0, "", true, fmt.Errorf("--shard auto: %s means %d shards, but %s holds parts of %d shards: a re-run keeps the first run's count (SHARDS=%d), or write to an empty folder", from, n, dir, folder, folder)
	}
	if id < 0 || id >= n {
		return 0, 0, "", true, fmt.Errorf("--shard auto: task id %d is not a shard of %d (from %s): array task ids are shard numbers 0..%d", id, n, from, n-1)
	}
	job := ""
	if j := getenv("SLURM_ARRAY_JOB_ID"); j != "" {
		job = " of job " + j
	}
	return id, n, fmt.Sprintf("shard %d/%d: task id %d%s, N from %s", id, n, id, job, from), true, nil
}

func orNone(dir string) string {
	if dir == "" {
		return "no output folder"
	}
	return dir
}
