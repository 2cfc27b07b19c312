package split

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

// Splitter emits the children of one record. A record that carries "error"
// (an inference failure) is still handed to the splitter: it splits what there
// is (nothing) so every check is counted.
type Splitter func(rec *record.Record, emit func(*record.Record) error) error

// ChildID is the id of a part: <parent id>#<part>.
func ChildID(parent, part string) string { return parent + "#" + part }

// responseMeta is the parent's response without its text: children carry it
// so usage, latency, endpoint and system_fingerprint (which marks llm-sim
// replies) stay with every check, without copying a long reply into each.
func responseMeta(rec *record.Record) ([]byte, error) {
	if !rec.Has("response") {
		return nil, nil
	}
	var resp map[string]json.RawMessage
	if err := rec.Decode("response", &resp); err != nil {
		return nil, err
	}
	delete(resp, "text")
	delete(resp, "reasoning")
	return record.Marshal(resp)
}

// KeepResponseMeta is s with the parent's response metadata (responseMeta)
// set on every child that has no response of its own: Run splits with it, so
// a splitter need not copy any of the response.
func KeepResponseMeta(s Splitter) Splitter {
	return func(rec *record.Record, emit func(*record.Record) error) error {
		meta, err := responseMeta(rec)
		if err != nil {
			return app.Invalid(err)
		}
		return s(rec, func(child *record.Record) error {
			if meta != nil && !child.Has("response") {
				child.SetRaw("response", meta)
			}
			return emit(child)
		})
	}
}

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
		return KeepResponseMeta(s)(rec, emit)
	})
	for _, b := range slices.Sorted(maps.Keys(whole)) {
		r.AddSummary("unsplit_"+b, whole[b]) // benchmarks judged whole
	}
	return err
}
