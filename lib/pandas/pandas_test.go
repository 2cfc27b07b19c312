package pandas

import (
	"math"
	"slices"
	"testing"
)

func TestMean(t *testing.T) {
	tenth := slices.Repeat([]float64{0.1}, 10)
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 2.5},
		{[]float64{1, math.NaN(), 3}, 2}, // NaN skipped, as pandas' skipna
		{tenth, 0.1},                     // compensated: a plain sum gives 0.09999999999999999
	} {
		if got := Mean(tc.xs); got != tc.want {
			t.Errorf("Mean(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	for _, xs := range [][]float64{nil, {math.NaN()}} {
		if !math.IsNaN(Mean(xs)) {
			t.Errorf("Mean(%v) is not NaN", xs)
		}
	}
}

func TestStd(t *testing.T) {
	if got := Std([]float64{2, 4, 4, 4, 5, 5, 7, 9}); math.Abs(got-2.138089935299395) > 1e-15 {
		t.Errorf("Std = %v", got)
	}
	if got := Std([]float64{1, math.NaN(), 3}); got != math.Sqrt2 {
		t.Errorf("Std skipping NaN = %v, want √2", got)
	}
	for _, xs := range [][]float64{nil, {1}, {1, math.NaN()}} {
		if !math.IsNaN(Std(xs)) {
			t.Errorf("Std(%v) is not NaN: ddof=1 needs two values", xs)
		}
	}
}
