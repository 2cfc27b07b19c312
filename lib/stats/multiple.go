package stats

import (
	"math"
	"slices"
)

// Holm adjusts p-values for the number of comparisons (Holm's step-down
// method): a comparison whose adjusted p-value is below α is significant
// with the chance of any false finding among them kept at α. NaN values
// are not comparisons: they stay NaN and do not count.
func Holm(p []float64) []float64 {
	idx, m := ranked(p)
	out := nanLike(p)
	prev := 0.0
	for r, i := range idx {
		v := math.Min(1, float64(m-r)*p[i])
		prev = math.Max(prev, v)
		out[i] = prev
	}
	return out
}

// BenjaminiHochberg adjusts p-values to control the false discovery rate
// (the expected share of false findings among the significant ones).
func BenjaminiHochberg(p []float64) []float64 {
	idx, m := ranked(p)
	out := nanLike(p)
	prev := 1.0
	for r := len(idx) - 1; r >= 0; r-- {
		i := idx[r]
		prev = math.Min(prev, math.Min(1, float64(m)*p[i]/float64(r+1)))
		out[i] = prev
	}
	return out
}

// ranked lists the indices of the defined p-values, smallest first.
func ranked(p []float64) ([]int, int) {
	var idx []int
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	return idx, len(idx)
}

func nanLike(p []float64) []float64 {
	out := make([]float64, len(p))
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}
