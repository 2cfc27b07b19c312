package longgenbench

import (
	"errors"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

func TestEntryNumber(t *testing.T) {
	tests := []struct {
		block, label string
		want         int
		ok           bool
	}{
		{" Week 12 (March 19th - March 25th): rain", "Week", 12, true},
		{" Menu Week 5 (January 29th - February 4th):", "Week", 0, false}, // the official regex takes 5
		{" Menu Week 5 (January 29th - February 4th):", "Menu Week", 5, true},
		{" Menu Day 45: soup", "Day", 0, false},
		{" Day 45 (Wednesday, February 14th):", "Day", 45, true},
		{" Floors 3 to 5 are offices", "Floor", 0, false},
		{" SubFloor 3", "Floor", 0, false},
		{" floor 34: lowercase", "Floor", 0, false}, // case-sensitive, as official
		{" Floor 34: gym. Unlike Floor 33, ...", "Floor", 34, true},
		{" Block 7 (6, 0):", "Block", 7, true},
		{" The Week ahead. Week 9 (February 26th - March 4th):", "Week", 9, true},
		{"", "Week", 0, false},
	}
	for _, tc := range tests {
		n, ok := entryNumber(tc.block, tc.label)
		if n != tc.want || ok != tc.ok {
			t.Errorf("entryNumber(%q, %q) = %d, %v; want %d, %v", tc.block, tc.label, n, ok, tc.want, tc.ok)
		}
	}
}

func TestParseEntriesFirstClaimWins(t *testing.T) {
	out := "#*# Floor 1: lobby\n#*# Floor 2: offices\n#*# Floor 2: again\n#*# nothing here\n#*# Floor 4: gym"
	e := ParseEntries(out, "Floor")
	if e.Blocks != 6 || e.Words != 19 {
		t.Errorf("blocks %d words %d", e.Blocks, e.Words)
	}
	if len(e.Text) != 3 || e.Text[2] != "Floor 2: offices" {
		t.Errorf("entries %v", e.Text)
	}
}

func checksRecord(t *testing.T, response string, extra map[string]any) *record.Record {
	t.Helper()
	rec := record.New("r1")
	rec.Set("bench", Bench)
	rec.Set("group", map[string]string{"version": Short})
	rec.Set("gold", Gold{Type: "Floor", Prefix: "#*# Floor 1:", Number: 3, Checks: Checks{
		Single:   map[string]string{"1": "coffee shop"},
		Range:    map[string]string{"2": "offices", "3": "offices"},
		Periodic: map[string]string{"01": "washroom"}, // official keys may be zero-padded
	}})
	if response != "" {
		rec.Set("response", record.Response{Text: response, FinishReason: "length"})
	}
	for k, v := range extra {
		rec.Set(k, v)
	}
	return rec
}

func splitAll(t *testing.T, rec *record.Record) ([]*record.Record, error) {
	t.Helper()
	var kids []*record.Record
	err := Split(rec, func(r *record.Record) error { kids = append(kids, r); return nil })
	return kids, err
}

func TestSplitChildren(t *testing.T) {
	kids, err := splitAll(t, checksRecord(t, " a coffee shop\n#*# Floor 2: offices, and then the text stops mid", map[string]any{"model": "m"}))
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"r1#single-1", "r1#range-2", "r1#range-3", "r1#periodic-1"}
	if len(kids) != len(ids) {
		t.Fatalf("%d children", len(kids))
	}
	for i, k := range kids {
		if k.ID() != ids[i] || k.String("parent") != "r1" || k.String("model") != "m" {
			t.Errorf("child %d: id %q parent %q model %q", i, k.ID(), k.String("parent"), k.String("model"))
		}
		c := decode[Counts](t, k, "split")
		if c.Number != 3 || c.Found != 2 || c.Checks != 4 || c.FinishReason != "length" {
			t.Errorf("counts %+v", c)
		}
	}
	e := decode[Entry](t, kids[0], "entry")
	if !e.Found || e.Text != "Floor 1: a coffee shop" {
		t.Errorf("entry 1 = %+v", e)
	}
	if e := decode[Entry](t, kids[2], "entry"); e.Found || e.Text != "" {
		t.Errorf("missing entry 3 = %+v", e)
	}
	if g := decode[CheckGold](t, kids[3], "gold"); g.Check != Periodic || g.Entry != 1 || g.Event != "washroom" || g.Label != "Floor" {
		t.Errorf("gold %+v", g)
	}
}

func TestSplitInferError(t *testing.T) {
	rec := checksRecord(t, "", map[string]any{"error": record.Error{Stage: "infer-batch", Kind: "timeout", Message: "x"}})
	kids, err := splitAll(t, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 4 {
		t.Fatalf("%d children", len(kids))
	}
	for _, k := range kids {
		if decode[Entry](t, k, "entry").Found {
			t.Errorf("%s: entry found in a failed inference", k.ID())
		}
		c := decode[Counts](t, k, "split")
		if k.Errored() || len(c.Error) == 0 || c.Found != 0 || c.Words != 0 {
			t.Errorf("%s: errored %v counts %+v", k.ID(), k.Errored(), c)
		}
	}
}

func TestSplitBadInput(t *testing.T) {
	out := checksRecord(t, "x", nil)
	out.Set("gold", Gold{Type: "Floor", Prefix: "#*# Floor 1:", Number: 3, Checks: Checks{Single: map[string]string{"4": "roof"}}})
	_, err := splitAll(t, out)
	if err == nil || !strings.Contains(err.Error(), `"r1"`) || !strings.Contains(err.Error(), "outside 1..3") {
		t.Errorf("out of range check: %v", err)
	}
	var re *record.Error
	if errors.As(err, &re) {
		t.Errorf("bad input must stop the run, not fail the record: %v", err)
	}
	none := checksRecord(t, "", nil)
	if _, err := splitAll(t, none); err == nil {
		t.Error("a record with neither response nor error was split")
	}
}
