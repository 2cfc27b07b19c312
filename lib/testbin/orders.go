package testbin

import (
	"math/rand/v2"
	"slices"
)

// Orders returns xs in n other orders for tests of order independence: the
// first reversed, the others shuffled with a fixed seed.
func Orders[T any](xs []T, n int) [][]T {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]T, n)
	for i := range out {
		out[i] = slices.Clone(xs)
		if i == 0 {
			slices.Reverse(out[i])
			continue
		}
		r.Shuffle(len(xs), func(a, b int) { out[i][a], out[i][b] = out[i][b], out[i][a] })
	}
	return out
}
