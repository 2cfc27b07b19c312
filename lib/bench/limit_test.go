package bench

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

func item(id, task, length string) *record.Record {
	rec := record.New(id)
	rec.Set("task", task)
	rec.Set("group", map[string]string{"length": length})
	return rec
}

func TestCellOf(t *testing.T) {
	cell := CellOf("group.length", "task")
	if got := cell(item("a", "qa", "4k")); got != "4k × qa" {
		t.Errorf("cell %q, want 4k × qa", got)
	}
	// A record without the fields is in a cell of its own, not an error.
	if got := cell(record.New("b")); got != " × " {
		t.Errorf("cell of a bare record %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad field name was accepted")
		}
	}()
	CellOf("no such")
}

// gen-context's --limit keeps the first N items of each cell in the order
// they come, stamped with the limit and a source that says so.
func TestLimitItems(t *testing.T) {
	b := toy("b")
	b.Cells, b.Cell = "length × task", CellOf("group.length", "task")
	keep, l := b.LimitItems(2)
	var kept []string
	for i, c := range []struct{ task, length string }{{"qa", "4k"}, {"qa", "4k"}, {"qa", "8k"}, {"qa", "4k"}, {"sum", "4k"}, {"qa", "8k"}, {"qa", "8k"}} {
		rec := item(fmt.Sprint(i), c.task, c.length)
		rec.Set(record.SourceField, "generated")
		ok, err := keep(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		kept = append(kept, rec.ID())
		var n int
		if rec.Decode(record.LimitField, &n); n != 2 || rec.String(record.SourceField) != "generated; limited to the first 2 items of each length × task (--limit 2)" {
			t.Errorf("kept item %s: limit %d, source %q", rec.ID(), n, rec.String(record.SourceField))
		}
	}
	if want := []string{"0", "1", "2", "4", "5"}; !slices.Equal(kept, want) || l.Dropped() != 2 {
		t.Errorf("kept %v (dropped %d), want %v (dropped 2)", kept, l.Dropped(), want)
	}
	if got := b.LimitNote(1); got != "limited to the first item of each length × task (--limit 1)" {
		t.Errorf("LimitNote(1) = %q", got)
	}
}

// fanOut makes three requests per task of an item: a cell per task.
type fanOut struct{}

func (fanOut) Expand(item *record.Record, emit func(*record.Record) error) error {
	for _, task := range []string{"a", "b"} {
		for i := range 3 {
			rec := item.Clone()
			rec.SetID(fmt.Sprintf("%s/%s/%d", item.ID(), task, i))
			rec.Set("task", task)
			if err := emit(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// expand-templates keeps, of the requests made from a limited item, the
// first N of each cell; an item without a limit expands whole.
func TestLimitRequests(t *testing.T) {
	b := toy("b")
	f := b.LimitRequests(func(expand.Options) (expand.Expander, error) { return fanOut{}, nil })
	e, err := f(expand.Options{})
	if err != nil {
		t.Fatal(err)
	}
	expandIDs := func(rec *record.Record) []string {
		var ids []string
		if err := e.Expand(rec, func(r *record.Record) error { ids = append(ids, r.ID()); return nil }); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	limited := record.New("x")
	limited.Set(record.LimitField, 2)
	if got, want := expandIDs(limited), []string{"x/a/0", "x/a/1", "x/b/0", "x/b/1"}; !slices.Equal(got, want) {
		t.Errorf("limited item: %v, want %v", got, want)
	}
	if got := expandIDs(record.New("y")); len(got) != 6 {
		t.Errorf("an item without a limit: %v, want all 6 requests", got)
	}
	bad := record.New("z")
	bad.Set(record.LimitField, 0)
	if err := e.Expand(bad, func(*record.Record) error { return nil }); err == nil {
		t.Error("a limit of 0 was accepted")
	}
}
