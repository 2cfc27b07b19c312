package lifbench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/testbin"
)

// The metrics are correctly rounded sums (lib/fsum): the same samples in any
// order give the same rows and tables, to the last bit.
func TestAggregateIgnoresRecordOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var ss []sample
	for _, tk := range Tasks {
		for _, l := range []string{"4k", "8k", "16k"} {
			for e := range 5 {
				for v := range 3 {
					s := sample{model: "m", task: tk, length: l, expression: strconv.Itoa(e), variable: strconv.Itoa(v), points: make([]float64, len(tk.Points))}
					for i := range s.points {
						s.points[i] = float64(r.IntN(7)) / float64(1+r.IntN(6)) / 7
					}
					s.score = float64(r.IntN(100)) / float64(1+r.IntN(99))
					ss = append(ss, s)
				}
			}
		}
	}
	show := func(ss []sample) string {
		res, err := compute(ss, aggregate.Options{Decimals: 3})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%v\n%v", res.Rows, aggregate.Lay(Tables, res, aggregate.TableOptions{Decimals: 3}))
	}
	want := show(ss)
	for p, other := range testbin.Orders(ss, 4) {
		if got := show(other); got != want {
			t.Fatalf("samples in order %d (0 is reversed) give other metrics", p)
		}
	}
}
