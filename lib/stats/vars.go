package stats

import (
	"slices"
)

// Vars names the sufficient statistics of a sample: each name is an index
// into the vector the units' statistics are summed into.
type Vars struct {
	index map[string]int
	names []string
}

// NewVars is an empty set of names.
func NewVars() *Vars { return &Vars{index: map[string]int{}} }

// Add is the index of name, a new one the first time.
func (v *Vars) Add(name string) int {
	if i, ok := v.index[name]; ok {
		return i
	}
	v.index[name] = len(v.names)
	v.names = append(v.names, name)
	return len(v.names) - 1
}

// Len is the number of names.
func (v *Vars) Len() int { return len(v.names) }

// Entry is one statistic of a unit: its index in Vars and its value.
type Entry struct {
	Var   int
	Value float64
}

// Unit is what the bootstrap resamples: the statistics of the items that
// move together, summed.
type Unit struct {
	Key string
	// Strata are the unit's stratum at each level of stratification, finest
	// first (LIFBench: its scenario and length, then its length): the
	// resampling keeps the strata of the first level at which every stratum
	// has two units or more, or pools the units.
	Strata []string
	Stats  []Entry // sorted by Var, each Var once
}

// Sum adds the entries into a unit's statistics: e adds to the same Var.
func Sum(entries []Entry) []Entry {
	slices.SortStableFunc(entries, func(a, b Entry) int { return a.Var - b.Var })
	out := entries[:0]
	for _, e := range entries {
		if n := len(out); n > 0 && out[n-1].Var == e.Var {
			out[n-1].Value += e.Value
			continue
		}
		out = append(out, e)
	}
	return out
}

// Reader gives an estimator its statistics by name while it is built, and
// remembers which it read: the units behind its value are those that hold
// any of them.
type Reader struct {
	vars  *Vars
	reads []int
}

// NewReader reads the statistics of v.
func NewReader(v *Vars) *Reader { return &Reader{vars: v} }

// Var is the index of the named statistic, or -1 when no unit has it (At
// reads it as 0).
func (r *Reader) Var(name string) int {
	i, ok := r.vars.index[name]
	if !ok {
		return -1
	}
	if !slices.Contains(r.reads, i) {
		r.reads = append(r.reads, i)
	}
	return i
}

// Names are the names of every statistic, for an estimator that reads a
// family of them (the groups of a task, the lengths present).
func (r *Reader) Names() []string { return r.vars.names }

// Metric is the estimator built with the reader, with what it reads.
func (r *Reader) Metric(value Estimator) Metric {
	reads := slices.Clone(r.reads)
	slices.Sort(reads)
	r.reads = r.reads[:0]
	return Metric{Reads: reads, Value: value}
}

// At is x[i], 0 for a statistic no unit has (i < 0).
func At(x []float64, i int) float64 {
	if i < 0 {
		return 0
	}
	return x[i]
}

// Estimator computes a metric from the statistics summed over a sample of
// units (or a resample, each unit as many times as it was drawn).
type Estimator func(x []float64) float64

// Metric is an estimator and the statistics it reads.
type Metric struct {
	Reads []int // sorted
	Value Estimator
}

// behind lists the units that hold a statistic of any of the metrics (the
// units of a value), and a key naming that set.
func behind(units [][]Entry, reads []int, nvars int) []int {
	mark := make([]bool, nvars)
	for _, r := range reads {
		mark[r] = true
	}
	var out []int
	for i, u := range units {
		for _, e := range u {
			if mark[e.Var] {
				out = append(out, i)
				break
			}
		}
	}
	return out
}
