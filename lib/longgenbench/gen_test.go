package longgenbench

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

func generate(t *testing.T, opt GenOptions) []*record.Record {
	t.Helper()
	var out []*record.Record
	if err := Generate(opt, func(r *record.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func decode[T any](t *testing.T, r *record.Record, key string) T {
	t.Helper()
	var v T
	if err := r.Decode(key, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestGenerateShapes(t *testing.T) {
	want := map[string]struct {
		label  string
		number int
	}{
		"short/diary": {"Week", 52}, "short/menu": {"Menu Week", 52}, "short/skyscraper": {"Floor", 100}, "short/urban": {"Block", 100},
		"long/diary": {"Day", 365}, "long/menu": {"Menu Day", 365}, "long/skyscraper": {"Floor", 300}, "long/urban": {"Block", 361},
	}
	for _, v := range []string{Short, Long} {
		for _, rec := range generate(t, GenOptions{Version: v, Count: 5, Seed: 7}) {
			g := decode[Gold](t, rec, "gold")
			ctx := decode[Context](t, rec, "context")
			w := want[v+"/"+ctx.Scenario]
			if g.Type != w.label || g.Number != w.number {
				t.Errorf("%s: type %q number %d, want %q %d", rec.ID(), g.Type, g.Number, w.label, w.number)
			}
			if len(g.Checks.Single) != 5 || len(g.Checks.Range) < 2 || len(g.Checks.Periodic) < 2 {
				t.Errorf("%s: checks single %d range %d periodic %d", rec.ID(), len(g.Checks.Single), len(g.Checks.Range), len(g.Checks.Periodic))
			}
			for _, typ := range CheckTypes {
				for k := range g.Checks.byType(typ) {
					if n, err := strconv.Atoi(k); err != nil || n < 1 || n > g.Number {
						t.Errorf("%s: %s check at %q outside 1..%d", rec.ID(), typ, k, g.Number)
					}
				}
			}
			if !strings.HasSuffix(ctx.Prompt, StartMarker+"\n"+g.Prefix) {
				t.Errorf("%s: prompt does not end with the start marker and prefix", rec.ID())
			}
			if wantTokens := map[string]int{Short: 16000, Long: 32000}[v]; ctx.MaxTokens != wantTokens {
				t.Errorf("%s: max_tokens %d", rec.ID(), ctx.MaxTokens)
			}
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	joined := func(opt GenOptions) []byte {
		var b []byte
		for _, r := range generate(t, opt) {
			b = append(r.AppendJSON(b), '\n')
		}
		return b
	}
	a := joined(GenOptions{Version: Short, Count: 3, Seed: 1})
	if !bytes.Equal(a, joined(GenOptions{Version: Short, Count: 3, Seed: 1})) {
		t.Fatal("same seed, different records")
	}
	if bytes.Equal(a, joined(GenOptions{Version: Short, Count: 3, Seed: 2})) {
		t.Fatal("different seeds, same records")
	}
	// A scenario's records do not depend on which other scenarios are asked for.
	one := joined(GenOptions{Scenarios: []string{"urban"}, Version: Short, Count: 3, Seed: 1})
	if !bytes.Contains(a, one) {
		t.Fatal("urban records change when generated alone")
	}
}

func TestGenerateRejects(t *testing.T) {
	for _, opt := range []GenOptions{
		{Version: "medium", Count: 1},
		{Version: Short, Count: 0},
		{Version: Short, Count: 1, Scenarios: []string{"poetry"}},
	} {
		if err := opt.Validate(); err == nil {
			t.Errorf("%+v: accepted", opt)
		}
	}
}

// The prompt states every requirement so that it reads back to the gold
// check set: what the model is asked and what is checked cannot differ.
func TestPromptReadsBackToChecks(t *testing.T) {
	for _, v := range []string{Short, Long} {
		for _, rec := range generate(t, GenOptions{Version: v, Count: 20, Seed: 3}) {
			g := decode[Gold](t, rec, "gold")
			ctx := decode[Context](t, rec, "context")
			s, reqs, ok := parseTask(ctx.Prompt)
			if !ok {
				t.Fatalf("%s: prompt not recognised", rec.ID())
			}
			if s.label != g.Type || s.number != g.Number || len(reqs) != 7 {
				t.Fatalf("%s: read %q %d with %d requirements", rec.ID(), s.label, s.number, len(reqs))
			}
			if got := checksOf(reqs, s); !reflect.DeepEqual(got, g.Checks) {
				t.Fatalf("%s: checks read back\n%v\nwant\n%v", rec.ID(), got, g.Checks)
			}
		}
	}
}

func TestCalendarAndGrid(t *testing.T) {
	week, _ := lookup("diary", Short)
	day, _ := lookup("diary", Long)
	grid, _ := lookup("urban", Short)
	tests := []struct {
		s    scenario
		n    int
		want string
	}{
		{week, 1, "Week 1 (January 1st - January 7th):"},
		{week, 52, "Week 52 (December 24th - December 30th):"},
		{day, 45, "Day 45 (Wednesday, February 14th):"},
		{grid, 95, "Block 95 (4, 9):"},
		{grid, 1, "Block 1 (0, 0):"},
	}
	for _, tc := range tests {
		if got := tc.s.heading(tc.n); got != tc.want {
			t.Errorf("heading(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	// Urban blocks along a column step by the grid width.
	q := requirement{Type: Range, Unit: unitBlock, A: grid.block(4, 6), B: grid.block(4, 9)}
	if got := q.entries(grid); !reflect.DeepEqual(got, []int{65, 75, 85, 95}) {
		t.Errorf("column range = %v", got)
	}
	p := requirement{Type: Periodic, Unit: unitBlock, A: grid.block(1, 5), B: 4}
	if got := p.entries(grid); !reflect.DeepEqual(got, []int{52, 56, 60}) {
		t.Errorf("row periodic = %v", got)
	}
}
