package aggregate

import (
	"fmt"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// The provenance table: a line per model, benchmark and run, what the
// records say (counts, cuts as far as they were checked, judge and its
// prompt, tokenizer, llm-sim, source)
// beside what the rows say (ifkit version, date); a line of earlier rows
// alone has "–" where only records could say.
func TestProvenanceTable(t *testing.T) {
	p := NewProvenance()
	for _, line := range []string{
		`{"id":"1","bench":"eifbench","model":"a","source":"ifkit sample, 6 tasks","response":{"text":"x","tokenizer":"server","usage":{"prompt_tokens":9},"system_fingerprint":"llm-sim"},"judgement":{"score":1,"judge":{"model":"j"},"detail":{"prompt":"zh"}}}`,
		`{"id":"2","bench":"eifbench","model":"a","source":"ifkit sample, 6 tasks","response":{"text":"x","tokenizer":"o200k_base~","server_truncated":true},"judgement":{"score":0,"judge":{"model":"j"},"detail":{"prompt":"zh"}}}`,
		`{"id":"3","bench":"eifbench","model":"a","error":{"kind":"reasoning_unfinished"},"response":{"text":"","reasoning_unfinished":true}}`,
		`{"id":"1","bench":"lifbench","model":"b","response":{"text":"x","tokenizer":"hf:Qwen/Qwen2.5-7B","usage":{"prompt_tokens":9}},"judgement":{"score":1}}`,
	} {
		rec, err := record.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		p.Add(rec, map[string]string{"a": "", "b": "lake1"}[rec.String("model")])
	}
	p.Fill("own1", "v9", "2026-03-04T05:06:07Z")
	rows := []report.Row{
		{Bench: "eifbench", Model: "a", Metric: "CLA", Run: "own1", Version: "v9", Created: "2026-03-04T05:06:07Z", Dims: map[string]string{"source": "ifkit sample, 6 tasks", "simulated": "true"}},
		{Bench: "ifscale", Model: "c", Metric: "accuracy", Run: "old", Version: "v1", Created: "2025-12-01T00:00:00Z", Dims: map[string]string{"source": "official file x.csv, 3 bytes"}},
		{Bench: "ifscale", Model: "gpt-4o (published)", Metric: "accuracy"},
	}
	got := p.Table(rows)
	want := [][]string{
		{"a", "eifbench", "own1", "v9", "2026-03-04", "ifkit sample, 6 tasks", "3: 1 failed, 1 cut by the server, 1 reasoning unfinished", "j (judge prompt zh)",
			"o200k_base~ (an estimate), the server's tokenize API (exact)", "llm-sim (a test double: the numbers describe the simulator)"},
		{"b", "lifbench", "lake1", "v9", "2026-03-04", "–", "1: 0 failed, 0 cut by the server, 0 reasoning unfinished", "none (scored by a program)", "hf:Qwen/Qwen2.5-7B (exact)", "the model named"},
		{"c", "ifscale", "old", "v1", "2025-12-01", "official file x.csv, 3 bytes", "–", "–", "–", "the model named"},
	}
	if fmt.Sprintf("%q", got.Rows) != fmt.Sprintf("%q", want) {
		t.Errorf("rows\n%q\nwant\n%q", got.Rows, want)
	}
	// A reply whose cut could not have been seen is never counted "0 cut".
	q := NewProvenance()
	rec, _ := record.Parse([]byte(`{"id":"1","bench":"ifscale","model":"d","response":{"text":"x","tokenizer":"o200k_base~"},"judgement":{"score":1}}`))
	q.Add(rec, "")
	q.Fill("own1", "v9", "2026-03-04T05:06:07Z")
	if r := q.Table(nil).Rows[0][6]; r != "1: 0 failed, cuts not checked, 0 reasoning unfinished" {
		t.Errorf("an unchecked reply: %q", r)
	}
	if len(got.Notes) != 1 {
		t.Errorf("notes %q, want the one on rows alone", got.Notes)
	}
	if a := p.About("eifbench", "a"); a != "judge j (judge prompt zh); prompt tokens counted by o200k_base~ (an estimate), the server's tokenize API (exact)" {
		t.Errorf("About = %q", a)
	}
}
