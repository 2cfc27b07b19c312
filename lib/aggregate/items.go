package aggregate

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stream"
)

// Scored is one scored record, as --items writes it (the per-sample table
// an evaluation team joins against) and as --flips compares two models'
// answers. It is derived from the record's common fields (docs/records.md,
// "Records"), the same for every benchmark.
type Scored struct {
	ID, Bench, Model, Task, Run string
	// Judge is the judge model the record is for (JudgeOf; "" for none):
	// a model's records judged by several are named apart by it.
	Judge                    string
	Group                    map[string]string
	Score                    *float64 // judgement.score; nil when the record was not judged
	Verdict, ErrKind, Finish string
	Failed, Truncated        bool
	ReplyTokens              *int // response.usage.completion_tokens, when the server counted them
}

// ScoredOf reads a record's Scored ("" run: this run's own): --items'
// rows, --flips' pairs and the page's explorer read records alike.
func ScoredOf(rec *record.Record, run string) Scored {
	it := Scored{ID: rec.ID(), Bench: rec.String("bench"), Model: ModelOf(rec), Task: rec.String("task"), Run: run, Judge: JudgeOf(rec),
		Failed: rec.Errored(), Truncated: ServerTruncated(rec)}
	it.Group = GroupOf(rec)
	var j struct {
		Score   *float64 `json:"score"`
		Verdict string   `json:"verdict"`
	}
	if rec.Has("judgement") && rec.Decode("judgement", &j) == nil {
		it.Score, it.Verdict = j.Score, j.Verdict
	}
	var e struct {
		Kind string `json:"kind"`
	}
	if it.Failed && rec.Decode("error", &e) == nil {
		it.ErrKind = e.Kind
	}
	var resp struct {
		Finish string `json:"finish_reason"`
		Usage  *struct {
			Completion *int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if rec.Has("response") && rec.Decode("response", &resp) == nil {
		it.Finish = resp.Finish
		if resp.Usage != nil {
			it.ReplyTokens = resp.Usage.Completion
		}
	}
	return it
}

// GroupOf is the record's group as text: a string as it is, any other value
// (a number, a boolean) as its JSON text, so that `"density": 10` and
// `"density": "10"` are one column; a null is absent.
func GroupOf(rec *record.Record) map[string]string {
	var raw map[string]json.RawMessage
	if !rec.Has("group") || rec.Decode("group", &raw) != nil {
		return nil
	}
	g := make(map[string]string, len(raw))
	for k, v := range raw {
		switch {
		case string(v) == "null":
		case len(v) > 0 && v[0] == '"':
			g[k], _ = record.Unquote(v)
		default:
			g[k] = string(v)
		}
	}
	return g
}

// itemColumns come first in every items table; the group's keys follow.
var itemColumns = []report.Column{
	{Name: "id", Type: report.Text, Required: true}, {Name: "bench", Type: report.Text, Required: true},
	{Name: "model", Type: report.Text, Required: true}, {Name: "task", Type: report.Text},
	{Name: "run", Type: report.Text, Required: true},
	{Name: "score", Type: report.Double}, {Name: "verdict", Type: report.Text},
	{Name: "failed", Type: report.Bool, Required: true}, {Name: "error_kind", Type: report.Text},
	{Name: "truncated", Type: report.Bool, Required: true}, {Name: "finish_reason", Type: report.Text},
}

// itemTable types the items: a column per group key, numbers for the numeric
// dimensions (density, seed, …; null where a label is not a number).
func itemTable(items []Scored) report.TypedTable {
	t := report.TypedTable{Columns: slices.Clone(itemColumns)}
	taken := func(k string) bool {
		return slices.ContainsFunc(t.Columns, func(c report.Column) bool { return c.Name == k })
	}
	var keys []string
	for _, it := range items {
		for k := range it.Group {
			if !slices.Contains(keys, k) && !taken(k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		typ := report.Text
		switch {
		case slices.Contains(report.IntegerDims, k):
			typ = report.BigInt
		case slices.Contains(report.NumericDims, k):
			typ = report.Double
		}
		t.Columns = append(t.Columns, report.Column{Name: k, Type: typ})
	}
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	for _, it := range items {
		m := map[string]any{"id": it.ID, "bench": it.Bench, "model": it.Model, "task": opt(it.Task), "run": it.Run,
			"verdict": opt(it.Verdict), "failed": it.Failed, "error_kind": opt(it.ErrKind), "truncated": it.Truncated, "finish_reason": opt(it.Finish)}
		if it.Score != nil {
			m["score"] = *it.Score
		}
		for _, k := range keys {
			v, ok := it.Group[k]
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			switch {
			case slices.Contains(report.IntegerDims, k):
				if err == nil {
					m[k] = int64(f)
				}
			case slices.Contains(report.NumericDims, k):
				if err == nil {
					m[k] = f
				}
			default:
				m[k] = v
			}
		}
		t.Rows = append(t.Rows, m)
	}
	return t
}

// writeTable writes a typed table to path: Parquet for a .parquet name,
// else JSON Lines (compressed as the extension says), through a temporary
// name renamed when complete.
func writeTable(path string, t report.TypedTable) error {
	parquet := strings.HasSuffix(path, ".parquet")
	c := stream.ByExtension(path)
	if parquet {
		c = stream.None
	}
	o, err := stream.Create(path, c, nil)
	if err != nil {
		return err
	}
	if parquet {
		err = report.WriteParquet(o, t)
	} else {
		err = report.WriteTypedJSONL(o, t)
	}
	if err != nil {
		o.Discard()
		return err
	}
	return o.Close()
}
