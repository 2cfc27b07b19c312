// Package split cuts long responses into the parts a judge checks, one child
// record per check, routed by benchmark.
package split

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

// Splitter emits the children of one record. A record that carries "error"
// (an inference failure) is still handed to the splitter: it splits what there
// is (nothing) so every check is counted.
type Splitter func(rec *record.Record, emit func(*record.Record) error) error

// ChildID is the id of a part: <parent id>#<part>.
func ChildID(parent, part string) string { return parent + "#" + part }

// Run splits every record whose bench has a splitter; the others (benchmarks
// judged whole, such as LIFBench) pass through unchanged, and the summary says
// how many.
func Run(r *app.Run, reg map[string]Splitter) error {
	whole := map[string]int{}
	err := r.FlatMap(func(rec *record.Record, emit func(*record.Record) error) error {
		bench := rec.String("bench")
		s, ok := reg[bench]
		if !ok || rec.Has("parent") {
			whole[bench]++
			return emit(rec)
		}
		return s(rec, emit)
	})
	for b, n := range whole {
		r.Log.Info("passed through unsplit (judged whole)", "bench", b, "records", n)
	}
	return err
}
