package aggregate

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ifkit/ifkit/lib/report"
)

// Flip is one item two arms both answered whose score differs: the list an
// evaluation team reads first when two models (or two runs) are compared.
type Flip struct {
	Base, Other Scored
}

// scoreOf is an item's score for a flip: NaN when it failed before scoring.
func scoreOf(s Scored) float64 {
	if s.Failed || s.Score == nil {
		return math.NaN()
	}
	return *s.Score
}

// Flips lists the items of other whose score differs from the same item's
// (by id) in base, in id order: a score that changed, or an item that
// failed on one side only. Items one side did not answer are not flips.
func Flips(base, other []Scored) []Flip {
	byID := make(map[string]Scored, len(base))
	for _, s := range base {
		byID[s.ID] = s
	}
	var out []Flip
	for _, o := range other {
		b, ok := byID[o.ID]
		if !ok {
			continue
		}
		x, y := scoreOf(b), scoreOf(o)
		if math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) <= 1e-12 {
			continue
		}
		out = append(out, Flip{b, o})
	}
	slices.SortFunc(out, func(p, q Flip) int {
		return cmp.Or(strings.Compare(p.Base.Bench, q.Base.Bench), strings.Compare(p.Base.ID, q.Base.ID))
	})
	return out
}

// flipColumns come first in the --flips table; the items' group keys
// follow.
var flipColumns = []report.Column{
	{Name: "bench", Type: report.Text, Required: true}, {Name: "id", Type: report.Text, Required: true}, {Name: "task", Type: report.Text},
	{Name: "baseline", Type: report.Text, Required: true}, {Name: "baseline_run", Type: report.Text, Required: true},
	{Name: "model", Type: report.Text, Required: true}, {Name: "run", Type: report.Text, Required: true},
	{Name: "baseline_score", Type: report.Double}, {Name: "score", Type: report.Double}, {Name: "delta", Type: report.Double},
	{Name: "baseline_failed", Type: report.Bool, Required: true}, {Name: "failed", Type: report.Bool, Required: true},
	{Name: "baseline_reply_tokens", Type: report.BigInt}, {Name: "reply_tokens", Type: report.BigInt},
}

// flipTable is every pair's flips, one row per item (docs/records.md,
// "--flips"): an item, both scores and both replies' lengths, its group.
func flipTable(ps []pair) report.TypedTable {
	t := report.TypedTable{Columns: slices.Clone(flipColumns)}
	var flips []Flip
	for _, p := range ps {
		flips = append(flips, Flips(scoredItems(p.base), scoredItems(p.other))...)
	}
	var keys []string
	for _, f := range flips {
		for k := range f.Base.Group {
			if !slices.Contains(keys, k) && !slices.ContainsFunc(t.Columns, func(c report.Column) bool { return c.Name == k }) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Columns = append(t.Columns, report.Column{Name: k, Type: report.Text})
	}
	num := func(v float64) any {
		if math.IsNaN(v) {
			return nil
		}
		return v
	}
	tokens := func(n *int) any {
		if n == nil {
			return nil
		}
		return int64(*n)
	}
	for _, f := range flips {
		b, o := f.Base, f.Other
		m := map[string]any{"bench": b.Bench, "id": b.ID, "baseline": b.Model, "baseline_run": b.Run, "model": o.Model, "run": o.Run,
			"baseline_score": num(scoreOf(b)), "score": num(scoreOf(o)), "delta": num(scoreOf(o) - scoreOf(b)),
			"baseline_failed": b.Failed, "failed": o.Failed, "baseline_reply_tokens": tokens(b.ReplyTokens), "reply_tokens": tokens(o.ReplyTokens)}
		if b.Task != "" {
			m["task"] = b.Task
		}
		for k, v := range b.Group {
			if slices.Contains(keys, k) {
				m[k] = v
			}
		}
		t.Rows = append(t.Rows, m)
	}
	return t
}

// scoredItems are an arm's items as --flips compares them.
func scoredItems(a *arm) []Scored {
	var out []Scored
	for _, it := range a.items {
		if it.scored != nil {
			out = append(out, *it.scored)
		}
	}
	return out
}
