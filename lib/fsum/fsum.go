package fsum

import "math"

// Sum accumulates terms; the zero value is an empty sum.
type Sum struct {
	partials []float64 // non-overlapping, increasing in magnitude
	special  float64   // the sum of the infinite and NaN terms
	inf      float64   // the sum of the infinite terms
	overflow float64   // ±Inf once a finite running sum overflowed
}

// Add adds x.
func (s *Sum) Add(x float64) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		if math.IsInf(x, 0) {
			s.inf += x
		}
		s.special += x
		return
	}
	if s.overflow != 0 {
		return
	}
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	s.partials = s.partials[:i]
	if math.IsInf(x, 0) {
		// Python raises OverflowError here; the sum is reported as the
		// infinity it first overflowed to (which may depend on the order).
		s.overflow = x
		return
	}
	if x != 0 {
		s.partials = append(s.partials, x)
	}
}

// Value is the correctly rounded sum of the terms added: NaN if any term is
// NaN or infinities of both signs were added (Python raises ValueError for
// the latter), ±Inf for an infinite term or an intermediate overflow.
func (s *Sum) Value() float64 {
	switch {
	case s.special != 0: // NaN too
		return s.special
	case s.overflow != 0:
		return s.overflow
	}
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi := p[n]
	var lo float64
	// Add from the top down while the sum stays exact.
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	// Half-even rounding across partials: when the rest below lo has the
	// same sign as lo, the true sum is past the halfway point hi+lo was
	// rounded from.
	if n > 0 && (lo < 0 && p[n-1] < 0 || lo > 0 && p[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}

// Of is the correctly rounded sum of xs.
func Of(xs []float64) float64 {
	var s Sum
	for _, x := range xs {
		s.Add(x)
	}
	return s.Value()
}

// Mean is Of(xs) / len(xs), NaN for no terms.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return Of(xs) / float64(len(xs))
}

// Std is the sample standard deviation (ddof=1) over correctly rounded sums
// (the mean, then the squared deviations); NaN for fewer than two terms.
func Std(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := Mean(xs)
	var s Sum
	for _, x := range xs {
		s.Add((x - m) * (x - m))
	}
	return math.Sqrt(s.Value() / float64(len(xs)-1))
}
