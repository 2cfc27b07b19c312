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
		{"budget", []string{`{"id":"a","bench":"b","reasoning_budget":4096}`, `{"id":"a#1","parent":"a","bench":"b","reasoning_budget":4096}`, `{"id":"b","bench":"b"}`}, false, 1, map[string]string{}, 0},
		{"traces", []string{`{"id":"a","bench":"b","model":"m","response":{"text":"x","reasoning":"r","reasoning_format":"think_tags","reasoning_tokens":4,"reasoning_tokens_from":"usage","cut_check":"exact"}}`}, false, 1, map[string]string{}, 0},
		{"a trace unfinished", []string{`{"id":"a","bench":"b","model":"m","response":{"text":"","reasoning":"r","reasoning_format":"think_tags","reasoning_tokens":4,"reasoning_tokens_from":"usage","reasoning_unfinished":true},"error":{"kind":"reasoning_unfinished"}}`}, false, 2, map[string]string{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMarks(nil, Options{ExcludeTruncated: tc.exclude})
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
			res := &Result{Rows: []report.Row{{Bench: "b", Metric: "x"}}}
			m.mark(res, Options{})
			if notes := tablesOf(res, map[string]map[string]string{"t": nil})[0].Notes; len(notes) != tc.wantNotes {
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
		m := newMarks(nil, Options{})
		for _, i := range order {
			rec, err := record.Parse([]byte(recs[i]))
			if err != nil {
				t.Fatal(err)
			}
			m.add(rec)
		}
		res := &Result{Rows: []report.Row{{Metric: "x"}}}
		m.mark(res, Options{})
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

// failures is a benchmark's aggregator in small: one row per model and
// task, n_failed the failed records of each (checks count under their
// parent's task).
type failures struct{ rows map[[2]string]*report.Row }

func (f *failures) Add(rec *record.Record) error {
	k := [2]string{ModelOf(rec), rec.String("task")}
	if f.rows[k] == nil {
		f.rows[k] = &report.Row{Bench: "b", Model: k[0], Metric: "score", Dims: map[string]string{"task": k[1]}}
	}
	r := f.rows[k]
	r.N++
	if rec.Errored() {
		r.NFailed++
	}
	return nil
}

func (f *failures) Result() (*Result, error) {
	res := &Result{}
	for _, k := range slices.SortedFunc(maps.Keys(f.rows), func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) }) {
		res.Rows = append(res.Rows, *f.rows[k])
	}
	return res, nil
}

// Every row counts, apart from its other failures, those whose reply
// ended inside its reasoning trace, as the benchmark's own aggregator
// counts failures; the notes give each model's traces, their tokens and
// what to do about the unfinished ones.
func TestMarksCountUnfinishedTraces(t *testing.T) {
	f := func(Options) Aggregator { return &failures{rows: map[[2]string]*report.Row{}} }
	recs := []string{
		`{"id":"a","bench":"b","model":"m","task":"x","response":{"text":"[1]","reasoning":"r","reasoning_format":"think_tags","reasoning_tokens":10,"reasoning_tokens_from":"o200k_base~"}}`,
		`{"id":"b","bench":"b","model":"m","task":"x","response":{"text":"","reasoning":"r","reasoning_format":"think_tags","reasoning_tokens":30,"reasoning_tokens_from":"o200k_base~","reasoning_unfinished":true},"error":{"stage":"infer-batch","kind":"reasoning_unfinished","message":"m"}}`,
		`{"id":"c","bench":"b","model":"m","task":"y","error":{"stage":"infer-batch","kind":"timeout","message":"m"}}`,
		`{"id":"d","bench":"b","model":"m","task":"y","response":{"text":"","reasoning_format":"harmony","reasoning_tokens":20,"reasoning_tokens_from":"usage","reasoning_unfinished":true},"error":{"stage":"infer-batch","kind":"reasoning_unfinished","message":"m"}}`,
		`{"id":"e","bench":"b","model":"n","task":"y","response":{"text":"[2]"}}`,
	}
	m := newMarks(f, Options{})
	main := f(Options{})
	for _, line := range recs {
		rec, err := record.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if !m.add(rec) {
			main.Add(rec)
		}
	}
	res, _ := main.Result()
	m.mark(res, Options{})
	got := map[string][2]int{}
	for _, r := range res.Rows {
		got[r.Model+"/"+r.Dims["task"]] = [2]int{r.NFailed, r.NReasoningUnfinished}
	}
	if want := map[string][2]int{"m/x": {1, 1}, "m/y": {2, 1}, "n/y": {0, 0}}; !maps.Equal(got, want) {
		t.Errorf("rows (n_failed, n_reasoning_unfinished) %v, want %v", got, want)
	}
	notes := strings.Join(tablesOf(res, map[string]map[string]string{"t": nil})[0].Notes, "\n")
	notesHold(t, notes,
		"Reasoning (model m): 3 of 3 replies held a reasoning trace (harmony 1, think_tags 2)",
		"60 reasoning tokens, 20.0 per reply with a trace (counted by: o200k_base~ 2, usage 1)",
		"Reasoning unfinished (model m): 2 of 3 replies ended inside their trace",
		"--reasoning-budget")
	if strings.Contains(notes, "model n") || strings.Contains(notes, "Reasoning budget") {
		t.Errorf("a model without traces has a note:\n%s", notes)
	}
}

// The tables note the --reasoning-budget the requests were made with, over
// the records (a check counts as its parent).
func TestMarksNoteReasoningBudget(t *testing.T) {
	m := marksOf(t, `{"id":"a","bench":"b","reasoning_budget":4096}`, `{"id":"a#1","parent":"a","bench":"b","reasoning_budget":4096}`, `{"id":"a#2","parent":"a","bench":"b","reasoning_budget":4096}`, `{"id":"b","bench":"b"}`)
	res := &Result{Rows: []report.Row{{Bench: "b", Metric: "x"}}}
	m.mark(res, Options{})
	notes := tablesOf(res, map[string]map[string]string{"t": nil})[0].Notes
	if want := "Reasoning budget: max_tokens raised by 4096 tokens for the reasoning trace (expand-templates --reasoning-budget 4096) on 1 of 2 records"; len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// A table made from some of a benchmark's records (its Scope: one mode, one
// model) counts the cut prompts among its own records, not the benchmark's
// total; a table whose records were not cut says nothing.
func TestTruncationNoteFollowsTableScope(t *testing.T) {
	m := marksOf(t,
		`{"id":"g1","bench":"b","model":"m1","group":{"mode":"gist"},"response":{"server_truncated":true}}`,
		`{"id":"g2","bench":"b","model":"m1","group":{"mode":"gist"},"response":{"cut_check":"exact"}}`,
		`{"id":"g3","bench":"b","model":"m2","group":{"mode":"gist"},"response":{"server_truncated":true}}`,
		`{"id":"l1","bench":"b","model":"m1","group":{"mode":"list"},"response":{"cut_check":"exact"}}`,
		`{"id":"l2","bench":"b","model":"m1","group":{"mode":"list"},"response":{"cut_check":"exact"}}`,
	)
	res := &Result{Rows: []report.Row{{Bench: "b", Model: "m1", Metric: "x"}, {Bench: "b", Model: "m2", Metric: "x"}}}
	m.mark(res, Options{})
	tables := tablesOf(res, map[string]map[string]string{
		"all":     nil,
		"gist":    {"mode": "gist"},
		"gist m1": {"mode": "gist", "model": "m1"},
		"list":    {"mode": "list"},
	})
	want := map[string]string{"all": "Server-truncated: 2 of 5 records", "gist": "Server-truncated: 2 of 3 records", "gist m1": "Server-truncated: 1 of 2 records", "list": ""}
	for _, tb := range tables {
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
		{"inference failed", "", "", []string{`{"response":{"cut_check":"exact"},"error":{"stage":"infer-batch","kind":"x"}}`}},
		{"trace never ended", "", "", []string{`{"response":{"cut_check":"exact"},"error":{"stage":"judge","kind":"reasoning_unfinished"}}`}},
		{"judge call failed", "", "exact", []string{`{"response":{"cut_check":"exact"},"error":{"stage":"judge","kind":"server_error"}}`}},
		{"judge call failed first", "Server-truncated: cuts not checked on 1 of 2 records", "cuts not checked", []string{
			`{"parent":"p","response":{"cut_check":"unchecked"},"error":{"stage":"judge","kind":"server_error"}}`, `{"parent":"p","response":{"cut_check":"unchecked"}}`,
			`{"parent":"q","response":{"cut_check":"exact"},"error":{"stage":"judge","kind":"server_error"}}`}},
	} {
		m := newMarks(nil, Options{})
		for i, line := range tc.recs {
			rec, err := record.Parse([]byte(`{"id":"r` + strconv.Itoa(i) + `","bench":"b","model":"m",` + line[1:]))
			if err != nil {
				t.Fatal(err)
			}
			m.add(rec)
		}
		res := &Result{Rows: []report.Row{{Bench: "b", Model: "m"}}}
		m.mark(res, Options{})
		var note string
		for _, n := range tablesOf(res, map[string]map[string]string{"t": nil})[0].Notes {
			if strings.HasPrefix(n, "Server-truncated: cuts") {
				note = n
			}
		}
		if !strings.HasPrefix(note, tc.note) || tc.note == "" && note != "" || res.Rows[0].CutCheck != tc.label {
			t.Errorf("%s: note %q (want %q), row %q (want %q)", tc.name, note, tc.note, res.Rows[0].CutCheck, tc.label)
		}
	}
}

// tablesOf lays res out as aggregate-ifs does, as one table per title
// made from the records of its scope (report.Table.Scope), with the notes
// each gets.
func tablesOf(res *Result, scopes map[string]map[string]string) []report.Table {
	tabler := func([]report.Row, TableOptions) []report.Table {
		var out []report.Table
		for _, title := range slices.Sorted(maps.Keys(scopes)) {
			out = append(out, report.Table{Title: title, Scope: scopes[title]})
		}
		return out
	}
	return Lay(tabler, res, TableOptions{})
}

// Two models answering the same items are two sets of prompts sent: each
// model's cuts, checks, replies and traces are counted, not only those of
// the model read first.
func TestMarksCountEveryModelsReplies(t *testing.T) {
	m := marksOf(t,
		`{"id":"a","bench":"b","model":"m1","response":{"cut_check":"exact","usage":{"prompt_tokens":10,"completion_tokens":1}}}`,
		`{"id":"a#1","parent":"a","bench":"b","model":"m1","response":{"cut_check":"exact","usage":{"prompt_tokens":10,"completion_tokens":1}}}`,
		`{"id":"a","bench":"b","model":"m2","response":{"server_truncated":true,"reasoning_format":"think_tags","reasoning_tokens":4,"usage":{"prompt_tokens":20,"completion_tokens":2}}}`,
		`{"id":"b","bench":"b","model":"m2","response":{"cut_check":"unchecked","usage":{"prompt_tokens":20,"completion_tokens":2}}}`,
	)
	res := &Result{Rows: []report.Row{{Bench: "b", Model: "m1", Metric: "x"}, {Bench: "b", Model: "m2", Metric: "x"}}}
	m.mark(res, Options{})
	tables := tablesOf(res, map[string]map[string]string{"all": nil, "m2": {"model": "m2"}})
	notesHold(t, strings.Join(tables[0].Notes, "\n"),
		"Server-truncated: 1 of 3 records had their prompt cut",
		"cuts not checked on 1 of 3 records",
		"Tokens: 50 prompt, 5 completion, over 3 replies",
		"Reasoning (model m2): 1 of 2 replies held a reasoning trace")
	if m2 := strings.Join(tables[1].Notes, "\n"); !strings.Contains(m2, "Server-truncated: 1 of 2 records had their prompt cut") {
		t.Errorf("model m2's table does not count its cut:\n%s", m2)
	}
	if res.Rows[0].CutCheck != "exact" || res.Rows[1].CutCheck != "cuts not checked" {
		t.Errorf("cut_check %q, %q; want exact, cuts not checked", res.Rows[0].CutCheck, res.Rows[1].CutCheck)
	}
}

// marksOf is the marks of the records lines, as aggregate-ifs reads them.
func marksOf(t *testing.T, lines ...string) *marks {
	t.Helper()
	m := newMarks(nil, Options{})
	for _, line := range lines {
		rec, err := record.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		m.add(rec)
	}
	return m
}

func notesHold(t *testing.T, notes string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}
