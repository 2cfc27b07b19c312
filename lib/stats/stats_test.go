package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMultipleComparisons(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name     string
		p        []float64
		holm, bh []float64
	}{
		// R: p.adjust(c(.01, .04, .03, .005), "holm") and "BH".
		{"four", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}, []float64{0.02, 0.04, 0.04, 0.02}},
		{"one", []float64{0.2}, []float64{0.2}, []float64{0.2}},
		{"capped at 1", []float64{0.6, 0.9}, []float64{1, 1}, []float64{0.9, 0.9}},
		{"NaN is no comparison", []float64{0.01, nan, 0.04}, []float64{0.02, nan, 0.04}, []float64{0.02, nan, 0.04}},
	} {
		for _, m := range []struct {
			name string
			f    func([]float64) []float64
			want []float64
		}{{"holm", Holm, tc.holm}, {"bh", BenjaminiHochberg, tc.bh}} {
			got := m.f(tc.p)
			for i := range got {
				if !(near(got[i], m.want[i], 1e-12) || math.IsNaN(got[i]) && math.IsNaN(m.want[i])) {
					t.Errorf("%s %s: %v, want %v", tc.name, m.name, got, m.want)
					break
				}
			}
		}
	}
}

func TestPower(t *testing.T) {
	for _, tc := range []struct {
		se    float64
		df    int
		alpha float64
		power float64
		mdd   float64
	}{
		// Many units: the normal quantiles, 1.96 + 0.8416.
		{1, 100000, 0.05, 0.8, 2.8016},
		{0.5, 100000, 0.05, 0.8, 1.4008},
		// Nine units: t(9) at 0.975 and 0.8, 2.2622 + 0.8834.
		{1, 9, 0.05, 0.8, 3.1456},
		{1, 4, 0.01, 0.9, 6.1373},
	} {
		m := MDD(tc.se, tc.df, tc.alpha, tc.power)
		if !near(m, tc.mdd, 1e-3) {
			t.Errorf("MDD(%v, %d, %v, %v) = %v, want %v", tc.se, tc.df, tc.alpha, tc.power, m, tc.mdd)
		}
		if p := Power(m, tc.se, tc.df, tc.alpha); !near(p, tc.power, 0.01) {
			t.Errorf("Power at the MDD = %v, want about %v", p, tc.power)
		}
	}
	if p := Power(0, 1, 20, 0.05); !near(p, 0.05, 1e-9) {
		t.Errorf("Power of no difference = %v, want the level", p)
	}
}

// sample is n units of one item each (value x, count 1), statistics "n" and
// "x"; mean is Σx/Σn.
func sample(xs []float64, strata func(i int) []string) ([]Unit, *Vars, Metric) {
	v := NewVars()
	n, x := v.Add("n"), v.Add("x")
	units := make([]Unit, len(xs))
	for i, val := range xs {
		units[i] = Unit{Key: strconv.Itoa(i), Stats: []Entry{{n, 1}, {x, val}}}
		if strata != nil {
			units[i].Strata = strata(i)
		}
	}
	r := NewReader(v)
	ni, xi := r.Var("n"), r.Var("x")
	return units, v, r.Metric(func(s []float64) float64 { return At(s, xi) / At(s, ni) })
}

func normals(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	return xs
}

var opt = Options{Level: 0.95, B: 4000, Seed: 1, MinUnits: 5}

// The interval of a mean agrees with Student's t interval; too few units
// give none; the same seed gives the same interval.
func TestIntervalOfAMean(t *testing.T) {
	xs := normals(40, 3)
	units, v, m := sample(xs, nil)
	iv := Intervals(units, v.Len(), []Metric{m}, opt, 7)[0]
	mean := m.Value([]float64{40, sum(xs)})
	half := 2.0227 * sd(xs) / math.Sqrt(40) // t(0.975, 39)
	if !iv.OK || iv.Units != 40 || iv.Stratified != -1 {
		t.Fatalf("%+v", iv)
	}
	if !near(iv.Low, mean-half, 0.15*half) || !near(iv.High, mean+half, 0.15*half) {
		t.Errorf("[%.3f, %.3f], want about [%.3f, %.3f]", iv.Low, iv.High, mean-half, mean+half)
	}
	if again := Intervals(units, v.Len(), []Metric{m}, opt, 7)[0]; again != iv {
		t.Errorf("the same seed gave %+v then %+v", iv, again)
	}
	o := opt
	o.Seed = 2
	if other := Intervals(units, v.Len(), []Metric{m}, o, 7)[0]; other.Low == iv.Low {
		t.Errorf("another seed gave the same interval")
	}
	few, v4, m4 := sample(xs[:4], nil)
	if iv := Intervals(few, v4.Len(), []Metric{m4}, opt, 7)[0]; iv.OK || iv.Units != 4 || !math.IsNaN(iv.Low) || !near(iv.Value, sum(xs[:4])/4, 1e-12) {
		t.Errorf("4 units: %+v, want no interval", iv)
	}
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// Items that move together widen the interval: 20 units of 10 equal items
// each are 20 observations, not 200.
func TestClustersWidenTheInterval(t *testing.T) {
	xs := normals(20, 5)
	v := NewVars()
	n, x := v.Add("n"), v.Add("x")
	clusters := make([]Unit, len(xs))
	var items []Unit
	for i, val := range xs {
		clusters[i] = Unit{Key: strconv.Itoa(i), Stats: []Entry{{n, 10}, {x, 10 * val}}}
		for j := range 10 {
			items = append(items, Unit{Key: strconv.Itoa(i*10 + j), Stats: []Entry{{n, 1}, {x, val}}})
		}
	}
	r := NewReader(v)
	ni, xi := r.Var("n"), r.Var("x")
	m := r.Metric(func(s []float64) float64 { return At(s, xi) / At(s, ni) })
	c := Intervals(clusters, v.Len(), []Metric{m}, opt, 1)[0]
	i := Intervals(items, v.Len(), []Metric{m}, opt, 1)[0]
	if ratio := (c.High - c.Low) / (i.High - i.Low); ratio < 2.4 || ratio > 4 {
		t.Errorf("clustered width / itemwise width = %.2f, want about sqrt(10)", ratio)
	}
}

// Strata are kept where every stratum has two units, at the finest level
// that allows it; else the units are pooled.
func TestStrata(t *testing.T) {
	xs := normals(12, 9)
	for _, tc := range []struct {
		name   string
		strata func(i int) []string
		want   int
	}{
		{"two strata of six", func(i int) []string { return []string{strconv.Itoa(i % 2)} }, 0},
		{"a stratum of one: pooled", func(i int) []string { return []string{strconv.Itoa(min(i, 1))} }, -1},
		{"the finest level has singletons, the next does not", func(i int) []string { return []string{strconv.Itoa(i), strconv.Itoa(i % 3)} }, 1},
		{"one stratum", func(int) []string { return []string{"a"} }, -1},
	} {
		units, v, m := sample(xs, tc.strata)
		if iv := Intervals(units, v.Len(), []Metric{m}, opt, 1)[0]; iv.Stratified != tc.want || !iv.OK {
			t.Errorf("%s: stratified %d (ok %v), want %d", tc.name, iv.Stratified, iv.OK, tc.want)
		}
	}
	// A stratified resample keeps each stratum's size.
	units, _, _ := sample(xs, func(i int) []string { return []string{strconv.Itoa(i % 3)} })
	s, _ := newSampler(units, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, opt, 0)
	for range 50 {
		w := s.draw()
		for st := range 3 {
			got := 0
			for i := st; i < 12; i += 3 {
				got += w[i]
			}
			if got != 4 {
				t.Fatalf("stratum %d drew %d units, want 4", st, got)
			}
		}
	}
}

// The expanded percentile interval's tails: Φ(−sqrt(n/df)·t(df)).
func TestExpandedTail(t *testing.T) {
	for _, tc := range []struct {
		n, df int
		want  float64
	}{
		{5, 4, 0.000955},
		{18, 12, 0.003810},
		{1000, 999, 0.024804},
	} {
		s := &sampler{n: tc.n, df: tc.df}
		if got := s.tail(0.95); !near(got, tc.want, 2e-5) {
			t.Errorf("n %d df %d: tail %.6f, want %.6f", tc.n, tc.df, got, tc.want)
		}
	}
}

// A metric reads only its own units: a ratio of sums over the units of one
// group is resampled over those units alone.
func TestMetricsReadTheirOwnUnits(t *testing.T) {
	v := NewVars()
	var units []Unit
	for i := range 30 {
		g := "a"
		if i >= 24 {
			g = "b"
		}
		units = append(units, Unit{Key: strconv.Itoa(i), Stats: Sum([]Entry{{v.Add("n|" + g), 1}, {v.Add("x|" + g), float64(i % 2)}})})
	}
	r := NewReader(v)
	na, xa := r.Var("n|a"), r.Var("x|a")
	ma := r.Metric(func(s []float64) float64 { return At(s, xa) / At(s, na) })
	nb, xb := r.Var("n|b"), r.Var("x|b")
	mb := r.Metric(func(s []float64) float64 { return At(s, xb) / At(s, nb) })
	missing := r.Var("n|c")
	mc := r.Metric(func(s []float64) float64 { return At(s, missing) })
	ivs := Intervals(units, v.Len(), []Metric{ma, mb, mc}, opt, 1)
	if ivs[0].Units != 24 || ivs[1].Units != 6 || ivs[2].Units != 0 || !ivs[0].OK || !ivs[1].OK || ivs[2].OK {
		t.Errorf("%+v", ivs)
	}
}

// Paired differences: identical arms differ by nothing (p 1); three units
// each one better in a give p = 2/8 by enumeration; a clear difference over
// many units is found.
func TestPaired(t *testing.T) {
	xs := normals(30, 11)
	a, v, m := sample(xs, nil)
	d := Paired(a, a, v.Len(), []Metric{m}, opt, 1)[0]
	if d.Diff != 0 || d.P != 1 || !d.OK || d.Low != 0 || d.High != 0 || d.Exact {
		t.Errorf("identical arms: %+v", d)
	}
	a3, v3, m3 := sample([]float64{1, 2, 3}, nil)
	b3, _, _ := sample([]float64{0, 1, 2}, nil)
	d = Paired(a3, b3, v3.Len(), []Metric{m3}, opt, 1)[0]
	if !near(d.Diff, 1, 1e-12) || d.A != 2 || d.B != 1 || !near(d.P, 0.25, 1e-12) || !d.Exact || d.OK {
		t.Errorf("three units: %+v, want diff 1, exact p 0.25, no interval", d)
	}
	shifted := slices.Clone(xs)
	noise := normals(30, 12)
	for i := range shifted {
		shifted[i] += 1 + 0.3*noise[i]
	}
	b, _, _ := sample(shifted, nil)
	d = Paired(b, a, v.Len(), []Metric{m}, opt, 1)[0]
	if !near(d.Diff, 1, 0.2) || d.P > 0.01 || !d.OK || d.Low > d.Diff || d.High < d.Diff || d.Low <= 0 {
		t.Errorf("shifted by about 1: %+v", d)
	}
}

// A spread of group means (as LIFBench's IFS) resamples mostly above its
// value: resampling adds noise to every group's mean. The bias correction
// keeps the value well inside its interval; plain percentiles put it at the
// lower end, or below.
func TestBiasCorrection(t *testing.T) {
	xs := normals(40, 21)
	v := NewVars()
	var units []Unit
	for i, val := range xs {
		g := strconv.Itoa(i % 4)
		units = append(units, Unit{Key: strconv.Itoa(i), Stats: Sum([]Entry{{v.Add("n" + g), 1}, {v.Add("x" + g), val}})})
	}
	r := NewReader(v)
	var ns, sums []int
	for g := range 4 {
		ns, sums = append(ns, r.Var("n"+strconv.Itoa(g))), append(sums, r.Var("x"+strconv.Itoa(g)))
	}
	m := r.Metric(func(s []float64) float64 {
		var means []float64
		for g := range ns {
			means = append(means, At(s, sums[g])/At(s, ns[g]))
		}
		return sd(means)
	})
	iv := Intervals(units, v.Len(), []Metric{m}, opt, 3)[0]
	if !iv.OK || (iv.Value-iv.Low)/(iv.High-iv.Low) < 0.2 {
		t.Errorf("spread %.3f, interval [%.3f, %.3f]: the value sits at its edge", iv.Value, iv.Low, iv.High)
	}
}
