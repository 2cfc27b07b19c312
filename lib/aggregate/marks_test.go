package aggregate

import (
	"maps"
	"slices"
	"strconv"
	"strings"
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
		{"plain", []string{`{"id":"a","bench":"b","response":{"text":"x","cut_check":"exact"}}`}, false, 0, map[string]string{}, 0},
		{"simulated", []string{`{"id":"a","bench":"b","response":{"text":"x","system_fingerprint":"llm-sim","cut_check":"exact"}}`}, false, 1, map[string]string{"simulated": "true"}, 0},
		{"source", []string{`{"id":"a","bench":"b","source":"s1"}`, `{"id":"b","bench":"b","source":"s2"}`, `{"id":"c","bench":"b","source":"s1"}`}, false, 1, map[string]string{"source": "s1; s2"}, 0},
		{"partial", []string{`{"id":"a","bench":"b","partial_shards":{"present":1,"of":2,"missing":[1]}}`}, false, 1, map[string]string{"shards": "1 of 2 shards (missing 1)"}, 0},
		{"cut kept", []string{`{"id":"a","bench":"b","response":{"server_truncated":true}}`, `{"id":"b","bench":"b","response":{"cut_check":"exact"}}`}, false, 1, map[string]string{}, 0},
		{"cut left out", []string{`{"id":"a","bench":"b","response":{"server_truncated":true}}`, `{"id":"b","bench":"b","response":{"cut_check":"exact"}}`}, true, 1, map[string]string{}, 1},
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
			res := &Result{Tables: []report.Table{{Title: "t"}}, Rows: []report.Row{{Metric: "x"}}}
			m.mark(res)
			if len(res.Tables[0].Notes) != tc.wantNotes {
				t.Errorf("notes %q, want %d", res.Tables[0].Notes, tc.wantNotes)
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
		res := &Result{Tables: []report.Table{{Title: "t"}}, Rows: []report.Row{{Metric: "x"}}}
		m.mark(res)
		if first == nil {
			first = res
			if got := res.Rows[0].Dims["source"]; got != "official file GIST_256.json; official file GIST_512.json" {
				t.Errorf("source %q", got)
			}
			continue
		}
		if !slices.Equal(res.Tables[0].Notes, first.Tables[0].Notes) || !maps.Equal(res.Rows[0].Dims, first.Rows[0].Dims) {
			t.Errorf("records in another order: notes %q dims %v; first order: %q %v", res.Tables[0].Notes, res.Rows[0].Dims, first.Tables[0].Notes, first.Rows[0].Dims)
		}
	}
}

// A table made from some of a benchmark's records (its Scope: one mode, one
// model) counts the cut prompts among its own records, not the benchmark's
// total; a table whose records were not cut says nothing.
func TestTruncationNoteFollowsTableScope(t *testing.T) {
	m := newMarks(false)
	for _, line := range []string{
		`{"id":"g1","bench":"b","model":"m1","group":{"mode":"gist"},"response":{"server_truncated":true}}`,
		`{"id":"g2","bench":"b","model":"m1","group":{"mode":"gist"},"response":{"cut_check":"exact"}}`,
		`{"id":"g3","bench":"b","model":"m2","group":{"mode":"gist"},"response":{"server_truncated":true}}`,
		`{"id":"l1","bench":"b","model":"m1","group":{"mode":"list"},"response":{"cut_check":"exact"}}`,
		`{"id":"l2","bench":"b","model":"m1","group":{"mode":"list"},"response":{"cut_check":"exact"}}`,
	} {
		rec, err := record.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		m.add(rec)
	}
	res := &Result{Tables: []report.Table{
		{Title: "all"},
		{Title: "gist", Scope: map[string]string{"mode": "gist"}},
		{Title: "gist m1", Scope: map[string]string{"mode": "gist", "model": "m1"}},
		{Title: "list", Scope: map[string]string{"mode": "list"}},
	}}
	m.mark(res)
	want := map[string]string{"all": "Server-truncated: 2 of 5 records", "gist": "Server-truncated: 2 of 3 records", "gist m1": "Server-truncated: 1 of 2 records", "list": ""}
	for _, tb := range res.Tables {
		w := want[tb.Title]
		if w == "" && len(tb.Notes) > 0 || w != "" && (len(tb.Notes) != 1 || !strings.HasPrefix(tb.Notes[0], w)) {
			t.Errorf("table %q: notes %q, want %q", tb.Title, tb.Notes, w)
		}
	}
}

// Where a cut could not have been seen, every table's note and every row say
// so ("cuts not checked", "cuts under N % not detectable"), never a plain
// count of none; records checked exactly say nothing beyond the cuts found.
// Replies written before infer-batch said how it checked them count as
// checked exactly only when the model's own tokenizer counted them.
func TestCutChecksReported(t *testing.T) {
	for _, tc := range []struct {
		name, note, label string
		recs              []string
	}{
		{"exact", "", "exact", []string{`{"response":{"cut_check":"exact","usage":{"prompt_tokens":9}}}`}},
		{"calibrated", "Server-truncated: cuts under 5 % of a prompt not detectable on 2 of 3 records", "cuts under 5 % not detectable", []string{
			`{"response":{"cut_check":"calibrated","cut_margin":0.031}}`, `{"response":{"cut_check":"calibrated","cut_margin":0.041}}`, `{"response":{"cut_check":"exact"}}`}},
		{"not checked", "Server-truncated: cuts not checked on 1 of 2 records", "cuts not checked", []string{
			`{"response":{"cut_check":"unchecked"}}`, `{"response":{"cut_check":"calibrated","cut_margin":0.03}}`}},
		{"a cut found is checked", "", "exact", []string{`{"response":{"cut_check":"unchecked","server_truncated":true}}`}},
		{"earlier estimate", "Server-truncated: cuts not checked on 1 of 1 records", "cuts not checked", []string{`{"response":{"tokenizer":"o200k_base~","usage":{"prompt_tokens":9}}}`}},
		{"earlier exact count", "", "exact", []string{`{"response":{"tokenizer":"hf:tok.json","usage":{"prompt_tokens":9}}}`}},
		{"earlier exact count, no usage", "Server-truncated: cuts not checked on 1 of 1 records", "cuts not checked", []string{`{"response":{"tokenizer":"server"}}`}},
		{"no reply", "", "", []string{`{"error":{"kind":"x"}}`}},
	} {
		m := newMarks(false)
		for i, line := range tc.recs {
			rec, err := record.Parse([]byte(`{"id":"r` + strconv.Itoa(i) + `","bench":"b","model":"m",` + line[1:]))
			if err != nil {
				t.Fatal(err)
			}
			m.add(rec)
		}
		res := &Result{Tables: []report.Table{{Title: "t"}}, Rows: []report.Row{{Model: "m"}}}
		m.mark(res)
		var note string
		for _, n := range res.Tables[0].Notes {
			if strings.HasPrefix(n, "Server-truncated: cuts") {
				note = n
			}
		}
		if !strings.HasPrefix(note, tc.note) || tc.note == "" && note != "" || res.Rows[0].CutCheck != tc.label {
			t.Errorf("%s: note %q (want %q), row %q (want %q)", tc.name, note, tc.note, res.Rows[0].CutCheck, tc.label)
		}
	}
}
