package longins

import (
	"math/big"
	"strings"
	"testing"
)

// Any reply gives a set of canonical decimal ids and an F1 in [0, 1].
func FuzzPredicted(f *testing.F) {
	for _, s := range []string{"[1, 2, 3]", "[٣]", "[]", "[1]\n[2", "[99999999999999999999999]", "no brackets", "[[1],[2]]", "[-1, +2, 0x3]", "[" + strings.Repeat("9", 4301) + "]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		pred, _ := Predicted(reply)
		seen := map[string]bool{}
		for _, p := range pred {
			n, ok := new(big.Int).SetString(p, 10)
			if !ok || n.String() != p || seen[p] {
				t.Fatalf("%q: %q in %q is not a canonical decimal once", reply, p, pred)
			}
			seen[p] = true
		}
		f1, _ := F1(pred, []int{1, 2, 3})
		if f1 < 0 || f1 > 1 {
			t.Fatalf("%q: F1 %v", reply, f1)
		}
	})
}
