package stats

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Options set the resampling.
type Options struct {
	Level    float64 // the intervals' confidence level, e.g. 0.95
	B        int     // resamples
	Seed     uint64  // the same seed gives the same intervals
	MinUnits int     // a value behind fewer units gets no interval
}

// Interval is a metric's confidence interval.
type Interval struct {
	Value     float64 // the metric over all its units
	OK        bool    // false: too few units (or the metric undefined in most resamples)
	Low, High float64 // NaN when not OK
	SE        float64 // the standard deviation of the resampled values
	Units     int     // the units behind the value
	// Stratified is the level of Unit.Strata the resampling kept apart, -1
	// when it pooled the units.
	Stratified int
}

// Intervals computes each metric's interval by the cluster bootstrap: the
// units behind the metric (those holding a statistic it reads) are drawn
// with replacement, within strata where every stratum has two units or
// more, their statistics summed and the metric recomputed, B times; the
// interval is the expanded percentile interval of the resampled values.
// stream tells the samples of one call apart (the same seed and stream give
// the same resamples); metrics over the same units share resamples.
func Intervals(units []Unit, nvars int, metrics []Metric, opt Options, stream uint64) []Interval {
	out := make([]Interval, len(metrics))
	stats := make([][]Entry, len(units))
	for i, u := range units {
		stats[i] = u.Stats
	}
	for _, g := range groupByUnits(stats, nvars, metrics) {
		sum := make([]float64, nvars)
		for _, u := range g.units {
			add(sum, units[u].Stats, 1)
		}
		for _, m := range g.metrics {
			out[m] = Interval{Value: metrics[m].Value(sum), Low: math.NaN(), High: math.NaN(), SE: math.NaN(), Units: len(g.units), Stratified: -1}
		}
		s, ok := newSampler(units, g.units, opt, stream)
		if !ok {
			continue
		}
		boot := make([][]float64, len(g.metrics))
		for range opt.B {
			w := s.draw()
			clear(sum)
			for k, u := range g.units {
				if w[k] > 0 {
					add(sum, units[u].Stats, float64(w[k]))
				}
			}
			for j, m := range g.metrics {
				boot[j] = append(boot[j], metrics[m].Value(sum))
			}
		}
		for j, m := range g.metrics {
			v := out[m].Value
			out[m] = s.interval(boot[j], v, opt)
			out[m].Value = v
		}
	}
	return out
}

// group is a set of metrics behind the same units.
type group struct {
	units   []int
	metrics []int
}

func groupByUnits(stats [][]Entry, nvars int, metrics []Metric) []group {
	var out []group
	index := map[string]int{}
	for m, mt := range metrics {
		us := behind(stats, mt.Reads, nvars)
		key := fmt.Sprint(us)
		g, ok := index[key]
		if !ok {
			g = len(out)
			index[key] = g
			out = append(out, group{units: us})
		}
		out[g].metrics = append(out[g].metrics, m)
	}
	return out
}

func add(sum []float64, es []Entry, w float64) {
	for _, e := range es {
		sum[e.Var] += w * e.Value
	}
}

// sampler draws resamples of a set of units: how many times each is drawn.
type sampler struct {
	strata     [][]int // positions in the set, by stratum
	w          []int
	rng        *rand.Rand
	n, df      int
	stratified int
}

// newSampler resamples the units at positions us of units; false when they
// are too few for an interval.
func newSampler(units []Unit, us []int, opt Options, stream uint64) (*sampler, bool) {
	n := len(us)
	if n < max(opt.MinUnits, 2) || opt.B < 1 {
		return nil, false
	}
	s := &sampler{w: make([]int, n), n: n, stratified: -1}
	s.strata = [][]int{make([]int, n)}
	for i := range n {
		s.strata[0][i] = i
	}
	levels := 0
	for _, u := range us {
		levels = max(levels, len(units[u].Strata))
	}
	for level := range levels {
		by := map[string][]int{}
		var names []string
		for i, u := range us {
			name := ""
			if level < len(units[u].Strata) {
				name = units[u].Strata[level]
			}
			if _, ok := by[name]; !ok {
				names = append(names, name)
			}
			by[name] = append(by[name], i)
		}
		if len(names) < 2 {
			continue
		}
		ok := true
		for _, name := range names {
			ok = ok && len(by[name]) >= 2
		}
		if !ok {
			continue
		}
		slices.Sort(names)
		s.strata = nil
		for _, name := range names {
			s.strata = append(s.strata, by[name])
		}
		s.stratified = level
		break
	}
	s.df = n - len(s.strata)
	h := fnv.New64a()
	for _, u := range us {
		h.Write([]byte(units[u].Key))
		h.Write([]byte{0})
	}
	s.rng = rand.New(rand.NewPCG(opt.Seed, stream^h.Sum64()))
	return s, true
}

// draw is one resample: each unit's count, the strata's sizes kept.
func (s *sampler) draw() []int {
	clear(s.w)
	for _, st := range s.strata {
		for range st {
			s.w[st[s.rng.IntN(len(st))]]++
		}
	}
	return s.w
}

// z is the normal quantile of each tail of the expanded percentile interval
// (Hesterberg 2015, "What teachers should know about the bootstrap"): the
// percentile interval is too narrow in small samples, by about the factor
// sqrt((n−1)/n) and the normal quantile where Student's t belongs; taking
// the percentiles at Φ(∓sqrt(n/df)·t(df)) instead restores them. df is n
// less the number of strata.
func (s *sampler) z(level float64) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.df)}.Quantile(1 - (1-level)/2)
	return math.Sqrt(float64(s.n)/float64(s.df)) * t
}

// tail is the probability in each tail of the expanded percentile interval.
func (s *sampler) tail(level float64) float64 { return distuv.UnitNormal.CDF(-s.z(level)) }

// interval reads the interval off the resampled values of one metric,
// theta its value over all the units. The percentiles are bias-corrected
// (Efron's BC): a statistic whose resamples mostly fall on one side of it,
// as a standard deviation's fall above it, has its interval shifted by
// twice the normal quantile of that share (z₀), which is 0 for a statistic
// resampled symmetrically. A metric undefined (NaN) in more than a tenth of
// the resamples gets no interval: its value hangs on a few units.
func (s *sampler) interval(values []float64, theta float64, opt Options) Interval {
	out := Interval{Low: math.NaN(), High: math.NaN(), SE: math.NaN(), Units: s.n, Stratified: s.stratified}
	finite := values[:0:0]
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	if s.df < 1 || len(finite) < 2 || len(finite)*10 < len(values)*9 {
		return out
	}
	slices.Sort(finite)
	z0 := 0.0
	if !math.IsNaN(theta) {
		below := 0.0
		for _, v := range finite {
			switch {
			case v < theta:
				below++
			case v == theta:
				below += 0.5
			}
		}
		b := float64(len(finite))
		z0 = distuv.UnitNormal.Quantile(math.Min(math.Max(below/b, 0.5/b), 1-0.5/b))
	}
	z := s.z(opt.Level)
	out.OK = true
	out.Low = quantile(finite, distuv.UnitNormal.CDF(2*z0-z))
	out.High = quantile(finite, distuv.UnitNormal.CDF(2*z0+z))
	out.SE = sd(finite)
	return out
}

// quantile is the p-quantile of sorted xs, interpolated between order
// statistics (R's type 7, numpy's default).
func quantile(xs []float64, p float64) float64 {
	h := float64(len(xs)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

func sd(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

// Stream is a stream number for Intervals and Paired named by parts (a
// benchmark and a model): the same parts, the same resamples.
func Stream(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.Join(parts, "\x00")))
	return h.Sum64()
}
