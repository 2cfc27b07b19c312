package ifscale

import "math"

// The official numbers come from pandas groupby reductions, whose float
// rounding this file follows so that the aggregates match to the last bit.

// mean is pandas' group_mean: Kahan-compensated sum over the non-NaN values
// divided by their count; NaN when there are none.
func mean(xs []float64) float64 {
	var sum, comp float64
	n := 0
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		n++
		y := x - comp
		t := sum + y
		comp = t - sum - y
		sum = t
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// stdev is pandas' group_var with ddof=1 (Welford's update) under a sqrt.
// The published files were computed by a build whose compiler fused the M2
// update into one multiply-add; math.FMA does the same on every platform.
func stdev(xs []float64) float64 {
	var mu, m2 float64
	n := 0
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		n++
		old := mu
		mu += (x - old) / float64(n)
		m2 = math.FMA(x-mu, x-old, m2)
	}
	if n < 2 {
		return math.NaN()
	}
	return math.Sqrt(m2 / float64(n-1))
}

// ratio is a/b with the official NaN rule for a zero denominator.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}
