package fsum

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// Values CPython 3.11's math.fsum gives for the same terms.
func TestPythonValues(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{0.1, 0.2, 0.3}, 0.6}, // a plain sum gives 0.6000000000000001 in this order
		{[]float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1},
		{[]float64{1e-16, 1, 1e16}, 1.0000000000000002e16}, // the half-even correction across partials
		{[]float64{1e100, 1, -1e100, 1e-100, 1e50, -1, -1e50}, 1e-100},
		{[]float64{1 << 53, -0.5, -0x1p-54}, 9007199254740991},
		{[]float64{1 << 53, 1, 0x1p-100}, 9007199254740994},
		{[]float64{math.Inf(1), 1}, math.Inf(1)},
		{[]float64{math.Inf(-1), math.Inf(-1)}, math.Inf(-1)},
	} {
		if got := Of(c.xs); got != c.want {
			t.Errorf("fsum(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	// Python raises ValueError for -inf + inf and OverflowError for an
	// intermediate overflow; here they are NaN and the infinity reached.
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{math.Inf(1), math.Inf(-1)}, math.NaN()},
		{[]float64{math.NaN(), 1}, math.NaN()},
		{[]float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, math.Inf(1)},
	} {
		if got := Of(c.xs); got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("fsum(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if !math.IsNaN(Mean(nil)) || Mean([]float64{0.1, 0.2, 0.3}) != 0.19999999999999998 {
		t.Errorf("Mean: %v %v", Mean(nil), Mean([]float64{0.1, 0.2, 0.3}))
	}
}

// The sum is the exact sum rounded to nearest, ties to even, whatever the
// order of the terms.
func TestExactInAnyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		xs := make([]float64, 1+r.IntN(60))
		for i := range xs {
			switch r.IntN(3) {
			case 0: // scores and percentages, as aggregates sum them
				xs[i] = float64(r.IntN(1000)) / float64(1+r.IntN(999))
			case 1: // wide exponents, both signs: cancellation
				xs[i] = math.Ldexp(r.Float64()-0.5, r.IntN(200)-100)
			default:
				xs[i] = float64(r.IntN(7)) * 0.1
			}
		}
		exact := new(big.Rat)
		for _, x := range xs {
			exact.Add(exact, new(big.Rat).SetFloat64(x))
		}
		want, _ := exact.Float64()
		for p := range 4 {
			ys := slices.Clone(xs)
			switch p {
			case 1:
				slices.Reverse(ys)
			case 2, 3:
				r.Shuffle(len(ys), func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
			}
			if got := Of(ys); got != want {
				t.Fatalf("trial %d, order %d: fsum = %v, exact sum rounded = %v (terms %v)", trial, p, got, want, ys)
			}
		}
	}
}

func TestStd(t *testing.T) {
	if got := Std([]float64{2, 4, 4, 4, 5, 5, 7, 9}); math.Abs(got-2.138089935299395) > 1e-15 {
		t.Errorf("Std = %v", got)
	}
	// The deviations are summed exactly: the order of the terms is no matter.
	xs := []float64{1e8, 1, 1e-8, 3, 1e8 + 7}
	if a, b := Std(xs), Std([]float64{1e8 + 7, 3, 1e-8, 1, 1e8}); a != b {
		t.Errorf("Std depends on the order: %v, %v", a, b)
	}
	for _, xs := range [][]float64{nil, {1}} {
		if !math.IsNaN(Std(xs)) {
			t.Errorf("Std(%v) is not NaN: ddof=1 needs two values", xs)
		}
	}
}
