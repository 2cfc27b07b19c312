package stats

import (
	"math"
	"math/rand/v2"
)

// Difference is one metric of arm a less the same metric of arm b over the
// units both answered.
type Difference struct {
	OK        bool    // false: too few units for an interval (Diff and P may still be set)
	A, B      float64 // the metric of each arm over the units they share
	Diff      float64 // a − b
	Low, High float64 // the paired interval; NaN when not OK
	// SE is the standard error of the difference: the standard deviation of
	// the resampled differences, expanded by √(n/df) as the interval is;
	// DF its degrees of freedom, the units less the strata.
	SE    float64
	DF    int
	P     float64 // two-sided permutation p-value; NaN when undefined
	Exact bool    // P enumerated every swap (at most ExactUnits units)
	Units int
	// Stratified is the level of Unit.Strata the resampling kept apart, -1
	// when it pooled the units.
	Stratified int
}

// ExactUnits is the most units whose 2^n swaps the permutation test
// enumerates; with more it draws B of them.
const ExactUnits = 12

// Paired compares two arms unit by unit. a and b hold the same units in
// the same order (a[i].Key == b[i].Key), their statistics over one Vars: the
// items both arms answered. For each metric, the difference's interval is
// the expanded percentile interval of the paired cluster bootstrap (one
// draw of units for both arms), and its p-value is the permutation test's:
// under no difference, which arm a unit's statistics belong to is
// exchangeable, so the arms are swapped unit by unit (all 2^n ways up to
// ExactUnits units, else B random ways) and the p-value is the share of the
// swaps whose difference is at least as far from zero as the one observed.
func Paired(a, b []Unit, nvars int, metrics []Metric, opt Options, stream uint64) []Difference {
	out := make([]Difference, len(metrics))
	both := make([][]Entry, len(a))
	for i := range a {
		both[i] = append(append([]Entry{}, a[i].Stats...), b[i].Stats...)
	}
	for _, g := range groupByUnits(both, nvars, metrics) {
		sa, sb := make([]float64, nvars), make([]float64, nvars)
		sumOf := func(pick func(k int) (x, y []Entry, w float64)) {
			clear(sa)
			clear(sb)
			for k := range g.units {
				x, y, w := pick(k)
				if w > 0 {
					add(sa, x, w)
					add(sb, y, w)
				}
			}
		}
		diff := func(m int) float64 { return metrics[m].Value(sa) - metrics[m].Value(sb) }
		sumOf(func(k int) ([]Entry, []Entry, float64) { return a[g.units[k]].Stats, b[g.units[k]].Stats, 1 })
		for _, m := range g.metrics {
			va, vb := metrics[m].Value(sa), metrics[m].Value(sb)
			out[m] = Difference{A: va, B: vb, Diff: va - vb, Low: math.NaN(), High: math.NaN(), SE: math.NaN(), P: math.NaN(), Units: len(g.units), Stratified: -1}
		}
		permute(a, b, g, opt, stream, sumOf, diff, out)
		s, ok := newSampler(a, g.units, opt, stream)
		if !ok {
			continue
		}
		boot := make([][]float64, len(g.metrics))
		for range opt.B {
			w := s.draw()
			sumOf(func(k int) ([]Entry, []Entry, float64) {
				return a[g.units[k]].Stats, b[g.units[k]].Stats, float64(w[k])
			})
			for j, m := range g.metrics {
				boot[j] = append(boot[j], diff(m))
			}
		}
		for j, m := range g.metrics {
			iv := s.interval(boot[j], out[m].Diff, opt)
			out[m].OK, out[m].Low, out[m].High, out[m].Stratified = iv.OK, iv.Low, iv.High, iv.Stratified
			out[m].SE, out[m].DF = iv.SE*math.Sqrt(float64(s.n)/float64(s.df)), s.df
		}
	}
	return out
}

// permute sets the permutation p-values of a group's metrics.
func permute(a, b []Unit, g group, opt Options, stream uint64, sumOf func(func(k int) ([]Entry, []Entry, float64)), diff func(m int) float64, out []Difference) {
	n := len(g.units)
	if n == 0 {
		return
	}
	exact := n <= ExactUnits
	draws := opt.B
	if exact {
		draws = 1 << n
	}
	rng := rand.New(rand.NewPCG(opt.Seed^0x9e3779b97f4a7c15, stream))
	far := make([]int, len(g.metrics))
	defined := make([]int, len(g.metrics))
	swap := make([]bool, n)
	for d := range draws {
		for k := range swap {
			if exact {
				swap[k] = d>>k&1 == 1
			} else {
				swap[k] = rng.IntN(2) == 1
			}
		}
		sumOf(func(k int) ([]Entry, []Entry, float64) {
			x, y := a[g.units[k]].Stats, b[g.units[k]].Stats
			if swap[k] {
				x, y = y, x
			}
			return x, y, 1
		})
		for j, m := range g.metrics {
			v := diff(m)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			defined[j]++
			obs := math.Abs(out[m].Diff)
			if math.Abs(v) >= obs-1e-12*math.Max(1, obs) {
				far[j]++
			}
		}
	}
	for j, m := range g.metrics {
		if math.IsNaN(out[m].Diff) || defined[j] == 0 {
			continue
		}
		out[m].Exact = exact
		if exact {
			out[m].P = float64(far[j]) / float64(defined[j])
		} else {
			out[m].P = float64(far[j]+1) / float64(defined[j]+1)
		}
	}
}
