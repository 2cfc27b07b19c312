package app

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/parts"
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

// ParseShard reads --shard: "" (all), "I/N", or "auto" from an array task of
// any scheduler parts.Auto knows (the task id is the shard number, N from
// shards, the array when it is all N shards, or the parts already in dir),
// falling back to SLURM_PROCID/SLURM_NTASKS for multi-task steps.
func ParseShard(s string, getenv func(string) string, shards int, dir string) (Shard, string, error) {
	switch s {
	case "":
		return Shard{0, 1}, "", nil
	case "auto":
		return autoShard(getenv, shards, dir)
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

func autoShard(getenv func(string) string, shards int, dir string) (Shard, string, error) {
	i, n, note, inArray, err := parts.Auto(getenv, shards, dir)
	if err != nil {
		return Shard{}, "", err
	}
	if inArray {
		return Shard{i, n}, note, nil
	}
	p, err1 := strconv.Atoi(getenv("SLURM_PROCID"))
	nt, err2 := strconv.Atoi(getenv("SLURM_NTASKS"))
	if err1 == nil && err2 == nil && nt > 0 && p >= 0 && p < nt {
		return Shard{p, nt}, fmt.Sprintf("shard %d/%d from SLURM_PROCID/SLURM_NTASKS", p, nt), nil
	}
	return Shard{0, 1}, "--shard auto: no array task variables set (" + parts.Schedulers() + "); processing everything (0/1)", nil
}
