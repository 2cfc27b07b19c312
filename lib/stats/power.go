package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MDD is the minimum detectable difference: the smallest true difference a
// two-sided test at level alpha finds with the given power, for an estimate
// whose standard error is se (the normal approximation: (z₁₋α/₂ + z_power)·se).
func MDD(se, alpha, power float64) float64 {
	return (distuv.UnitNormal.Quantile(1-alpha/2) + distuv.UnitNormal.Quantile(power)) * se
}

// Power is the chance that a two-sided test at level alpha finds a true
// difference delta, for an estimate whose standard error is se.
func Power(delta, se, alpha float64) float64 {
	if se <= 0 || math.IsNaN(se) {
		return math.NaN()
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	d := math.Abs(delta) / se
	return distuv.UnitNormal.CDF(d-z) + distuv.UnitNormal.CDF(-d-z)
}
