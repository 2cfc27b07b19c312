package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MDD is the minimum detectable difference: the smallest true difference a
// two-sided test at level alpha finds with the given power, for an estimate
// whose standard error is se on df degrees of freedom (a paired comparison
// over n units: df = n − strata): (t₁₋α/₂ + t_power)·se, Student's t where
// few units make the normal quantiles promise too much.
func MDD(se float64, df int, alpha, power float64) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
	return (t.Quantile(1-alpha/2) + t.Quantile(power)) * se
}

// Power is the chance that a two-sided test at level alpha finds a true
// difference delta, for an estimate whose standard error is se on df
// degrees of freedom (the approximation MDD inverts).
func Power(delta, se float64, df int, alpha float64) float64 {
	if se <= 0 || math.IsNaN(se) || df < 1 {
		return math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
	c := t.Quantile(1 - alpha/2)
	d := math.Abs(delta) / se
	return t.CDF(d-c) + t.CDF(-d-c)
}
