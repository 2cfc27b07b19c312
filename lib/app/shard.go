package app

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard selects the records whose FNV-1a hash of id modulo N is I. Hashing the
// id (not the line number) keeps a record in the same shard when the input is
// reordered or grows, so array re-submissions and resumes line up.
type Shard struct{ I, N int }

// Keep reports whether the record with this id belongs to the shard.
func (s Shard) Keep(id string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()%uint64(s.N) == uint64(s.I)
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// ParseShard reads --shard: "" (all), "I/N", or "auto" from the Slurm array
// variables (TASK_ID normalised by MIN and STEP, as arrays may start at 1 or
// step), falling back to SLURM_PROCID/SLURM_NTASKS for multi-task steps.
func ParseShard(s string, getenv func(string) string) (Shard, string, error) {
	switch s {
	case "":
		return Shard{0, 1}, "", nil
	case "auto":
		return autoShard(getenv)
	}
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, "", fmt.Errorf("--shard %q: want I/N (e.g. 0/4) or auto", s)
	}
	si, err1 := strconv.Atoi(i)
	sn, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
		return Shard{}, "", fmt.Errorf("--shard %q: want I/N with 0 <= I < N", s)
	}
	return Shard{si, sn}, "", nil
}

func autoShard(getenv func(string) string) (Shard, string, error) {
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return n, true, nil
	}
	id, hasID, err := num("SLURM_ARRAY_TASK_ID")
	if err != nil {
		return Shard{}, "", err
	}
	if hasID {
		count, hasCount, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, "", err
		}
		min, hasMin, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, "", err
		}
		step, hasStep, err := num("SLURM_ARRAY_TASK_STEP")
		if err != nil {
			return Shard{}, "", err
		}
		if !hasStep || step < 1 {
			step = 1
		}
		if !hasMin {
			min = 0
		}
		if !hasCount {
			max, hasMax, err := num("SLURM_ARRAY_TASK_MAX")
			if err != nil || !hasMax {
				return Shard{}, "", fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX")
			}
			count = (max-min)/step + 1
		}
		i := (id - min) / step
		if (id-min)%step != 0 || i < 0 || i >= count {
			return Shard{}, "", fmt.Errorf("--shard auto: task id %d does not fit the array (min %d, step %d, count %d)", id, min, step, count)
		}
		return Shard{i, count}, fmt.Sprintf("shard %d/%d from SLURM_ARRAY_TASK_ID=%s (job %s)", i, count, getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_JOB_ID")), nil
	}
	if p, ok, err := num("SLURM_PROCID"); err == nil && ok {
		n, ok2, err := num("SLURM_NTASKS")
		if err == nil && ok2 && n > 0 && p < n {
			return Shard{p, n}, fmt.Sprintf("shard %d/%d from SLURM_PROCID/SLURM_NTASKS", p, n), nil
		}
	}
	return Shard{0, 1}, "--shard auto: no Slurm array variables set; processing everything (0/1)", nil
}
