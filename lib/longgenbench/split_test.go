package longgenbench

import (
	"errors"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
)

// TestEntryNumber: official mode follows parse_blocks in the pinned official
// Evalution/eval.py, m = re.search(rf"{type} (\d+)", block) then
// int(m.group(1)); strict mode fixes the regex's quirks.
func TestEntryNumber(t *testing.T) {
	const big = "99999999999999999999"
	tests := []struct {
		block, label string
		official     int // -1: the block claims no entry
		strict       int
	}{
		{" Week 12 (March 19th - March 25th): rain", "Week", 12, 12},
		{" Menu Week 5 (January 29th - February 4th):", "Week", 5, -1},
		{" Menu Week 5 (January 29th - February 4th):", "Menu Week", 5, 5},
		{" Menu Day 45: soup", "Day", 45, -1},
		{" Menu Floor 3: the bar's card", "Floor", 3, -1},
		{" Menu Block 7: street food", "Block", 7, -1},
		{" Day 45 (Wednesday, February 14th):", "Day", 45, 45},
		{" Floors 3 to 5 are offices", "Floor", -1, -1},
		{" SubFloor 3", "Floor", 3, -1},
		{" SubFloor 3, then Floor 4", "Floor", 3, 4},
		{" ÜberFloor 3", "Floor", 3, -1},          // a non-ASCII letter glues too
		{" floor 34: lowercase", "Floor", -1, -1}, // case-sensitive
		{" Floor 34: gym. Unlike Floor 33, ...", "Floor", 34, 34},
		{" Block 7 (6, 0):", "Block", 7, 7},
		{" The Week ahead. Week 9 (February 26th - March 4th):", "Week", 9, 9},
		{" Week １２: fullwidth", "Week", 12, 12}, // \d and int() take every script's digits
		{" Day ٤٥: Arabic-Indic", "Day", 45, 45},
		{" Day ۰۷", "Day", 7, 7},                          // Extended Arabic-Indic, leading zero
		{" Week 3² squared", "Week", 3, 3},                // ² is not a decimal digit: \d+ stops
		{" Week " + big + ", then Week 4", "Week", -1, 4}, // official: the first match only
		{" Week 9223372036854775807", "Week", 1<<63 - 1, 1<<63 - 1},
		{" Week " + strings.Repeat("4", pystr.IntMaxStrDigits+1) + ", then Week 4", "Week", -1, 4},
		{"", "Week", -1, -1},
	}
	for _, tc := range tests {
		for _, mode := range []struct {
			strict bool
			want   int
		}{{false, tc.official}, {true, tc.strict}} {
			n, ok, over := entryNumber(tc.block, tc.label, mode.strict)
			if !ok {
				n = -1
			}
			if n != mode.want {
				t.Errorf("entryNumber(%.40q, %q, strict %v) = %d; want %d", tc.block, tc.label, mode.strict, n, mode.want)
			}
			// int() on Python 3.10.7+ refuses the official first match.
			if want := !mode.strict && strings.Count(tc.block, "4") > pystr.IntMaxStrDigits; over != want {
				t.Errorf("entryNumber(%.40q, strict %v): over the limit %v, want %v", tc.block, mode.strict, over, want)
			}
		}
	}
}

// Word counts follow len(output.split()) in the official inference script:
// Python's whitespace includes U+001C-U+001F.
func TestParseEntriesWords(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want int
	}{
		{"#*# Week 1: a\x1cb\x1fc", 6},
		{"#*# Week 1:\u3000a\u00a0b", 5},
		{"", 0},
	} {
		if got := ParseEntries(tc.out, "Week", false).Words; got != tc.want {
			t.Errorf("words of %q = %d; want %d", tc.out, got, tc.want)
		}
	}
}

func TestParseEntriesFirstClaimWins(t *testing.T) {
	out := "#*# Floor 1: lobby\n#*# Floor 2: offices\n#*# Floor 2: again\n#*# nothing here\n#*# Floor 4: gym"
	for _, strict := range []bool{false, true} {
		e := ParseEntries(out, "Floor", strict)
		if e.Blocks != 6 || e.Words != 19 {
			t.Errorf("blocks %d words %d", e.Blocks, e.Words)
		}
		if len(e.Text) != 3 || e.Text[2] != "Floor 2: offices" {
			t.Errorf("entries %v", e.Text)
		}
	}
}

// TestSplitFirstClaimAsPinned: when several pieces claim one entry, the
// pinned official evaluator (mozhu621/LongGenBench 62c0e86,
// Evalution/eval.py parse_blocks) keeps the first and judges the check on it
// alone; earlier 2024 versions kept the last (docs/longgenbench.md, "Which
// piece an entry is read from"). Each reply is the minimal one that tells
// the two apart: the event sits only in the later piece.
func TestSplitFirstClaimAsPinned(t *testing.T) {
	tests := []struct {
		name   string
		reply  string // after the prefix "#*# Floor 1:"
		strict bool
		want   map[int]string // entry -> the text its checks are judged on; absent: missing
		found  int
	}{
		{"a heading repeated: the first piece", " a lobby\n#*# Floor 2: offices\n#*# Floor 2: a washroom", false,
			map[int]string{1: "Floor 1: a lobby", 2: "Floor 2: offices"}, 2},
		{"the prefix's entry restated", " a lobby\n#*# Floor 1: a coffee shop", false,
			map[int]string{1: "Floor 1: a lobby"}, 1},
		{"a piece claims its first number only", " a lobby\n#*# Floor 2, like Floor 3: offices\n#*# Floor 3: a washroom", false,
			map[int]string{1: "Floor 1: a lobby", 2: "Floor 2, like Floor 3: offices", 3: "Floor 3: a washroom"}, 3},
		{"a quirk's claim comes first and holds", " a lobby\n#*# SubFloor 2: storage\n#*# Floor 2: offices", false,
			map[int]string{1: "Floor 1: a lobby", 2: "SubFloor 2: storage"}, 2},
		{"strict: the quirk is no claim, the real heading wins", " a lobby\n#*# SubFloor 2: storage\n#*# Floor 2: offices", true,
			map[int]string{1: "Floor 1: a lobby", 2: "Floor 2: offices"}, 2},
		{"strict: a heading repeated, the first piece too", " a lobby\n#*# Floor 2: offices\n#*# Floor 2: a washroom", true,
			map[int]string{1: "Floor 1: a lobby", 2: "Floor 2: offices"}, 2},
		{"an entry past the end claims nothing that counts", " a lobby\n#*# Floor 9: roof\n#*# Floor 3: offices", false,
			map[int]string{1: "Floor 1: a lobby", 3: "Floor 3: offices"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := checksRecord(t, tc.reply, nil)
			var kids []*record.Record
			split := Split
			if tc.strict {
				split = SplitStrict
			}
			if err := split(rec, func(r *record.Record) error { kids = append(kids, r); return nil }); err != nil {
				t.Fatal(err)
			}
			for _, k := range kids {
				g := decode[CheckGold](t, k, "gold")
				e := decode[Entry](t, k, "entry")
				want, ok := tc.want[g.Entry]
				if e.Found != ok || e.Text != want {
					t.Errorf("%s: entry %+v; want found %v text %q", k.ID(), e, ok, want)
				}
				if c := decode[Counts](t, k, "split"); c.Found != tc.found {
					t.Errorf("%s: found %d entries; want %d", k.ID(), c.Found, tc.found)
				}
			}
		})
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
