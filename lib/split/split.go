package split

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/reasoning"
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
	delete(resp, "raw_text")
	return record.Marshal(resp)
}

// KeepResponseMeta is s with the parent's response metadata (responseMeta)
// set on every child that has no response of its own, and the parent's
// reasoning budget (record.BudgetField) on every child without one: Run
// splits with it, so a splitter need not copy any of them.
func KeepResponseMeta(s Splitter) Splitter {
	return func(rec *record.Record, emit func(*record.Record) error) error {
		meta, err := responseMeta(rec)
		if err != nil {
			return app.Invalid(err)
		}
		budget := rec.Raw(record.BudgetField)
		return s(rec, func(child *record.Record) error {
			if meta != nil && !child.Has("response") {
				child.SetRaw("response", meta)
			}
			if budget != nil && !child.Has(record.BudgetField) {
				child.SetRaw(record.BudgetField, budget)
			}
			return emit(child)
		})
	}
}

// Run splits every record whose bench has a splitter; the others (benchmarks
// judged whole, such as LIFBench) pass through, and the summary says how
// many. First the reasoning rule (mode) applies to any reply that still
// carries a trace: a splitter cuts the answer, never the thoughts before
// it; a trace that never ended fails the record, which is still split, so
// that every check is counted.
func Run(r *app.Run, reg map[string]Splitter, mode reasoning.Mode) error {
	whole := map[string]int{}
	err := r.FlatMap(func(rec *record.Record, emit func(*record.Record) error) error {
		re, err := reasoning.ApplyRecord(rec, mode, reasoning.Estimate)
		if err != nil {
			return app.Invalid(err)
		}
		if re != nil {
			r.Fail(rec, re)
		}
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
