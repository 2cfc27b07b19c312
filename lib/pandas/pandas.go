package pandas

import "math"

// Mean is pandas' group_mean: a Kahan-compensated sum over the non-NaN
// values divided by their count; NaN when there are none.
func Mean(xs []float64) float64 {
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

// Std is pandas' group_var with ddof=1 (Welford's update) under a square
// root, over the non-NaN values; NaN for fewer than two. The published
// IFScale files were computed by a build whose compiler fused the M2 update
// into one multiply-add; math.FMA does the same on every platform.
func Std(xs []float64) float64 {
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
