package bench

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/record"
)

// --limit N is one rule for every benchmark: keep the first N records of
// each cell of the benchmark's tables (Bench.Cell), in the order the
// generator and the expander make them, which the seed fixes. gen-context
// applies it to the items; expand-templates, to the requests made from one
// limited item, which matters where an item becomes many requests (a
// LIFBench context: every task × expression × variable of its scenario).
// A limited item's source says so, and so every report made from it.

// Limit counts the records of each cell and keeps the first N.
type Limit struct {
	n       int
	cell    func(*record.Record) string
	seen    map[string]int
	dropped int
}

// Limit is --limit n for b.
func (b Bench) Limit(n int) *Limit {
	return &Limit{n: n, cell: b.Cell, seen: map[string]int{}}
}

// Keep counts rec in its cell and says whether it is among the first N.
func (l *Limit) Keep(rec *record.Record) bool {
	c := l.cell(rec)
	l.seen[c]++
	if l.seen[c] > l.n {
		l.dropped++
		return false
	}
	return true
}

// Dropped is how many records Keep refused.
func (l *Limit) Dropped() int { return l.dropped }

// LimitNote is what the source of b's items says under --limit n.
func (b Bench) LimitNote(n int) string {
	items := fmt.Sprintf("%d items", n)
	if n == 1 {
		items = "item"
	}
	return fmt.Sprintf("limited to the first %s of each %s (--limit %d)", items, b.Cells, n)
}

// limitItem keeps the item when it is among the first N of its cell,
// stamped with the limit (record.LimitField) and a source that says so.
func (b Bench) limitItem(l *Limit, rec *record.Record) (bool, error) {
	if !l.Keep(rec) {
		return false, nil
	}
	if err := AddToSource(rec, b.LimitNote(l.n)); err != nil {
		return false, err
	}
	return true, rec.Set(record.LimitField, l.n)
}

// LimitItems is gen-context's --limit n for b: a function for
// app.Run.EmitOnly, and the Limit that counts what it dropped.
func (b Bench) LimitItems(n int) (func(*record.Record) (bool, error), *Limit) {
	l := b.Limit(n)
	return func(rec *record.Record) (bool, error) { return b.limitItem(l, rec) }, l
}

// LimitRequests makes the expanders of f keep, of the requests made from an
// item that carries a limit, the first N of each cell.
func (b Bench) LimitRequests(f expand.Factory) expand.Factory {
	return func(opt expand.Options) (expand.Expander, error) {
		e, err := f(opt)
		if err != nil {
			return nil, err
		}
		return limitedExpander{e, b}, nil
	}
}

type limitedExpander struct {
	expand.Expander
	b Bench
}

func (e limitedExpander) Expand(item *record.Record, emit func(*record.Record) error) error {
	var n int
	if item.Has(record.LimitField) {
		if err := item.Decode(record.LimitField, &n); err != nil || n < 1 {
			return app.Invalidf("%s: want a number of items, at least 1 (gen-context --limit)", record.LimitField)
		}
	}
	if n == 0 {
		return e.Expander.Expand(item, emit)
	}
	l := e.b.Limit(n)
	return e.Expander.Expand(item, func(rec *record.Record) error {
		if !l.Keep(rec) {
			return nil
		}
		return emit(rec)
	})
}

// CellOf is a Cell made of fields of the record, each a top-level string
// field or group.KEY (as --partition-by names them): the values joined by
// " × ". A bad field name is a mistake in the registry: it panics.
func CellOf(fields ...string) func(*record.Record) string {
	keys, err := lake.ParseKeys(strings.Join(fields, ","))
	if err != nil {
		panic(err)
	}
	return func(rec *record.Record) string {
		vs := make([]string, len(keys))
		for i, k := range keys {
			// The benchmark sets these fields itself: a value that is not
			// a string is a cell of its own, never an error.
			vs[i], _, _ = k.Value(rec)
		}
		return strings.Join(vs, " × ")
	}
}
