package ifscale

import "math"

// ratio is a/b with the official NaN rule for a zero denominator.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}
