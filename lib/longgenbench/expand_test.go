package longgenbench

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/testbin"
)

func expandOptions() expand.Options { return expand.Options{} }

func expandOne(t *testing.T, opt expand.Options, item *record.Record) Request {
	t.Helper()
	e, err := NewExpander(opt, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.Record
	if err := e.Expand(item, func(r *record.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].ID() != item.ID() || out[0].String("bench") != Bench || !out[0].Has("gold") || !out[0].Has("group") {
		t.Fatalf("expanded %d records", len(out))
	}
	return decode[Request](t, out[0], "request")
}

func TestExpand(t *testing.T) {
	items := generate(t, GenOptions{Scenarios: []string{"menu"}, Version: Long, Count: 1})
	r := expandOne(t, expand.Options{}, items[0])
	if r.MaxTokens != 32000 || r.Temperature != 0.95 || r.TopP != 0.95 || len(r.Stop) != 1 || r.Stop[0] != "*** finished" {
		t.Errorf("request %+v", r)
	}
	if !strings.HasSuffix(r.Prompt, "*** started ***\n#*# Menu Day 1 (Monday, January 1st):") {
		t.Errorf("prompt ends %q", r.Prompt[len(r.Prompt)-80:])
	}
	// --chat: the same raw prompt as the user message, the same sampling.
	e, _ := NewExpander(expand.Options{}, true)
	var out *record.Record
	if err := e.Expand(items[0], func(r *record.Record) error { out = r; return nil }); err != nil {
		t.Fatal(err)
	}
	c := decode[ChatRequest](t, out, "request")
	if len(c.Messages) != 2 || c.Messages[0].Role != "system" || c.Messages[0].Content != ContinueInstruction || c.Messages[1].Role != "user" ||
		c.Messages[1].Content != r.Prompt || c.MaxTokens != 32000 || c.Temperature != 0.95 || c.Stop[0] != EndMarker {
		t.Errorf("chat form %+v", c)
	}
	if strings.Contains(string(out.Raw("request")), `"prompt"`) {
		t.Errorf("the chat form carries a prompt too: %.200s", out.Raw("request"))
	}
	temp, topP, maxTok := 0.0, 1.0, 500
	r = expandOne(t, expand.Options{Temperature: &temp, TopP: &topP, MaxTokens: &maxTok}, items[0])
	if r.Temperature != 0 || r.TopP != 1 || r.MaxTokens != 500 {
		t.Errorf("overrides: %+v", r)
	}
	// A hand-written item without the start marker gets it appended.
	item := items[0].Clone()
	item.Set("context", Context{Prompt: "Plan a year of menus.", Version: Short})
	if r := expandOne(t, expand.Options{}, item); r.Prompt != "Plan a year of menus.\n*** started ***\n#*# Menu Day 1 (Monday, January 1st):" || r.MaxTokens != 16000 {
		t.Errorf("hand-written item: %+v", r)
	}
}

func TestImportOfficialShort(t *testing.T) {
	path := testbin.Reference(t, "longgenbench", "Dataset_short.json")
	var recs []*record.Record
	if err := ImportOfficial(path, func(r *record.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var raw []officialRecord
	b, _ := os.ReadFile(path)
	if err := record.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 400 || len(raw) != 400 {
		t.Fatalf("%d records", len(recs))
	}
	checks, tasks, past := 0, map[string]int{}, 0
	for i, rec := range recs {
		g := decode[Gold](t, rec, "gold")
		ctx := decode[Context](t, rec, "context")
		o := raw[i]
		if ctx.Prompt != o.Prompt || g.Prefix != o.Prefix || g.Type != o.Type || g.Number != o.Number || len(g.Checks.Single) != len(o.ChecksOnce) {
			t.Fatalf("record %d changed on import", i)
		}
		tasks[rec.String("task")]++
		if g.LastEntry > 0 {
			past++ // a check in "week 53" of a 52-week menu, kept as official
		}
		checks += len(g.Checks.Single) + len(g.Checks.Range) + len(g.Checks.Periodic)
		// Every official record expands and splits, even with an empty output.
		req := expandOne(t, expand.Options{}, rec)
		if req.Prompt != o.Prompt || req.MaxTokens != 16000 {
			t.Fatalf("record %d: request %q...", i, req.Prompt[:40])
		}
		rec.Set("response", record.Response{Text: ""})
		kids, err := splitAll(t, rec)
		if err != nil {
			t.Fatal(err)
		}
		if c := decode[Counts](t, kids[0], "split"); c.Found != 1 || c.Checks != len(kids) {
			t.Fatalf("record %d: counts %+v", i, c)
		}
	}
	if past != 2 {
		t.Errorf("%d records with checks past their last entry, want 2", past)
	}
	if checks != 6205 {
		t.Errorf("%d checks, want 6205", checks)
	}
	for _, s := range Scenarios {
		if tasks[s] != 100 {
			t.Errorf("tasks %v", tasks)
		}
	}
}

// llm-sim reads the official short prompts' requirements back to their
// check sets.
func TestSimReadsOfficialPrompts(t *testing.T) {
	path := testbin.Reference(t, "longgenbench", "Dataset_short.json")
	var recs []*record.Record
	if err := ImportOfficial(path, func(r *record.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	total, covered := 0, 0
	for _, rec := range recs {
		g := decode[Gold](t, rec, "gold")
		ctx := decode[Context](t, rec, "context")
		s, reqs, ok := parseTask(ctx.Prompt)
		if !ok || s.label != g.Type || s.number != g.Number {
			t.Fatalf("%s: read %q %d, %v", rec.ID(), s.label, s.number, ok)
		}
		placed := map[string]bool{}
		for _, q := range reqs {
			for _, e := range q.entries(s) {
				placed[strconv.Itoa(e)+"\x00"+q.Event] = true
			}
		}
		for _, typ := range CheckTypes {
			for k, ev := range g.Checks.byType(typ) {
				total++
				all := true // same-week birthdays are merged into one check: "a birthday, b birthday"
				for _, part := range strings.Split(ev, ", ") {
					all = all && placed[strconv.Itoa(atoi(k))+"\x00"+part]
				}
				if all {
					covered++
				} else if testing.Verbose() {
					t.Logf("%s: %s %s %q not placed", rec.ID(), typ, k, ev)
				}
			}
		}
	}
	// Not placed: the two checks in "week 53" of a 52-week menu.
	if covered != total-2 {
		t.Errorf("the simulator places %d of %d official checks", covered, total)
	}
}
