package aggregate

import (
	"maps"
	"slices"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// marks note on the tables, and as a dimension of the rows, only what their
// own records showed (Run keeps one per run and bench, so a simulated or
// partial run beside a real, whole one leaves the real one's notes alone).
func TestMarksStayWithTheirRecords(t *testing.T) {
	for _, tc := range []struct {
		name      string
		recs      []string
		exclude   bool
		wantNotes int
		wantDims  map[string]string
		skipped   int
	}{
		{"plain", []string{`{"id":"a","bench":"b","response":{"text":"x"}}`}, false, 0, map[string]string{}, 0},
		{"simulated", []string{`{"id":"a","bench":"b","response":{"text":"x","system_fingerprint":"llm-sim"}}`}, false, 1, map[string]string{"simulated": "true"}, 0},
		{"source", []string{`{"id":"a","bench":"b","source":"s1"}`, `{"id":"b","bench":"b","source":"s2"}`, `{"id":"c","bench":"b","source":"s1"}`}, false, 1, map[string]string{"source": "s1; s2"}, 0},
		{"partial", []string{`{"id":"a","bench":"b","partial_shards":{"present":1,"of":2,"missing":[1]}}`}, false, 1, map[string]string{"shards": "1 of 2 shards (missing 1)"}, 0},
		{"cut kept", []string{`{"id":"a","bench":"b","response":{"server_truncated":true}}`, `{"id":"b","bench":"b"}`}, false, 1, map[string]string{}, 0},
		{"cut left out", []string{`{"id":"a","bench":"b","response":{"server_truncated":true}}`, `{"id":"b","bench":"b"}`}, true, 1, map[string]string{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMarks(tc.exclude)
			skipped := 0
			for _, line := range tc.recs {
				rec, err := record.Parse([]byte(line))
				if err != nil {
					t.Fatal(err)
				}
				if m.add(rec) {
					skipped++
				}
			}
			res := &Result{Rows: []report.Row{{Metric: "x"}}}
			m.mark(res)
			if notes := append(res.Notes[""], rowNotes(res.Rows)...); len(notes) != tc.wantNotes {
				t.Errorf("notes %q, want %d", notes, tc.wantNotes)
			}
			got := res.Rows[0].Dims
			if got == nil {
				got = map[string]string{}
			}
			for k, v := range tc.wantDims {
				if got[k] != v {
					t.Errorf("dim %s = %q, want %q", k, got[k], v)
				}
			}
			if len(got) != len(tc.wantDims) {
				t.Errorf("dims %v, want %v", got, tc.wantDims)
			}
			if skipped != tc.skipped {
				t.Errorf("left out %d records, want %d", skipped, tc.skipped)
			}
		})
	}
}

// The notes and dimensions name the sources and the partial sets in sorted
// order, whatever order the records came in.
func TestMarksIgnoreRecordOrder(t *testing.T) {
	recs := []string{
		`{"id":"a","bench":"b","source":"official file GIST_512.json","partial_shards":{"present":3,"of":4,"missing":[2]}}`,
		`{"id":"b","bench":"b","source":"official file GIST_256.json","partial_shards":{"present":2,"of":4,"missing":[0,1]}}`,
	}
	var first *Result
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		m := newMarks(false)
		for _, i := range order {
			rec, err := record.Parse([]byte(recs[i]))
			if err != nil {
				t.Fatal(err)
			}
			m.add(rec)
		}
		res := &Result{Rows: []report.Row{{Metric: "x"}}}
		m.mark(res)
		if first == nil {
			first = res
			if got := res.Rows[0].Dims["source"]; got != "official file GIST_256.json; official file GIST_512.json" {
				t.Errorf("source %q", got)
			}
			continue
		}
		if !slices.Equal(res.Notes[""], first.Notes[""]) || !maps.Equal(res.Rows[0].Dims, first.Rows[0].Dims) {
			t.Errorf("records in another order: notes %q dims %v; first order: %q %v", res.Notes[""], res.Rows[0].Dims, first.Notes[""], first.Rows[0].Dims)
		}
	}
}

// A note the rows' dimensions call for names the models it concerns when
// not all of them share it.
func TestRowNotes(t *testing.T) {
	sim := map[string]string{"simulated": "true", "source": "s"}
	real := map[string]string{"source": "s"}
	for _, tc := range []struct {
		name string
		rows []report.Row
		want []string
	}{
		{"all simulated", []report.Row{{Model: "a", Dims: sim}, {Model: "b", Dims: sim}}, []string{"Items: s.", SimulatorNote}},
		{"one simulated", []report.Row{{Model: "a", Dims: sim}, {Model: "b", Dims: real}}, []string{"Items: s.", "a: " + SimulatorNote}},
		{"two sources", []report.Row{{Model: "a", Dims: map[string]string{"source": "x"}}, {Model: "b", Dims: map[string]string{"source": "y"}}}, []string{"a: Items: x.", "b: Items: y."}},
		{"none", []report.Row{{Model: "a"}}, nil},
	} {
		if got := rowNotes(tc.rows); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
