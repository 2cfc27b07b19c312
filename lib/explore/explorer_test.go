package explore

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// rec parses one record of a test.
func rec(t *testing.T, line string) *record.Record {
	t.Helper()
	r, err := record.Parse([]byte(line))
	if err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return r
}

// judged is a judged LIFBench-like record of model whose user message holds
// ctx between "Text:\n" and "\n\nQuestion:".
func judged(t *testing.T, id, model, ctx string, score float64) *record.Record {
	t.Helper()
	msg, _ := json.Marshal("Read the text.\nText:\n" + ctx + "\n\nQuestion: which colour?")
	return rec(t, fmt.Sprintf(`{"id":%q,"bench":"b","model":%q,"task":"t","group":{"length":"4k"},"context":{"text":%s},"request":{"messages":[{"role":"user","content":%s}]},"response":{"text":"red","finish_reason":"stop"},"gold":{"answer":"red"},"judgement":{"score":%v,"verdict":"x"}}`,
		id, model, mustJSON(t, ctx), msg, score))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// longText is n bytes of text that compress as prose does, not to nothing.
func longText(seed, n int) string {
	var b strings.Builder
	x := uint32(seed*2654435761 + 1)
	words := []string{"river", "lamp", "north", "quiet", "ledger", "amber", "copper", "window", "salt", "orchard", "engine", "violet"}
	for b.Len() < n {
		x = x*1664525 + 1013904223
		b.WriteString(words[x>>28%uint32(len(words))])
		fmt.Fprintf(&b, "%d ", x%997)
	}
	return b.String()[:n]
}

var blobRe = regexp.MustCompile(`<script type="application/x-ifkit-gzip-base64" id="([^"]+)">([^<]*)</script>`)

// page is a written page taken apart: its HTML and its data blobs,
// decompressed, by id.
type page struct {
	html  string
	blobs map[string][]byte
}

func write(t *testing.T, x *Explorer, rows []report.Row) page {
	t.Helper()
	var b bytes.Buffer
	prov := aggregate.NewProvenance()
	prov.Fill("run1", "v1", "2026-01-01T00:00:00Z")
	if err := x.Write(&b, rows, nil, prov); err != nil {
		t.Fatal(err)
	}
	p := page{html: b.String(), blobs: map[string][]byte{}}
	for _, m := range blobRe.FindAllStringSubmatch(p.html, -1) {
		gz, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatalf("%s: %v", m[1], err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("%s: %v", m[1], err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", m[1], err)
		}
		p.blobs[m[1]] = data
	}
	return p
}

func (p page) index(t *testing.T) index {
	t.Helper()
	var idx index
	if err := json.Unmarshal(p.blobs["x-index"], &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

// detail is the detail of the index's i-th item.
func (p page) detail(t *testing.T, i int) detail {
	t.Helper()
	e := p.index(t).Items[i]
	var ds []detail
	if err := json.Unmarshal(p.blobs[fmt.Sprintf("x-b%d", e.Block)], &ds); err != nil {
		t.Fatal(err)
	}
	return ds[e.Pos]
}

// contexts are the whole contexts the page holds.
func (p page) contexts() map[string]string {
	out := map[string]string{}
	for id, b := range p.blobs {
		if h, ok := strings.CutPrefix(id, "x-c-"); ok {
			out[h] = string(b)
		}
	}
	return out
}

var contextHooks = map[string]Hooks{"b": {
	Context: func(_ *record.Record, text string) (int, int, bool) {
		i := strings.Index(text, "Text:\n")
		j := strings.Index(text, "\n\nQuestion:")
		if i < 0 || j < i {
			return 0, 0, false
		}
		return i + len("Text:\n"), j, true
	},
	Focus: func(*record.Record) []string { return []string{"NEEDLE"} },
}}

// A context that many items of two models share is in the page once, and
// every item names it by the same hash; the instruction keeps the text
// around it.
func TestContextStoredOnce(t *testing.T) {
	ctx := longText(1, 512<<10) // a 128k-token context is about 500 KB
	ctx = ctx[:300<<10] + " NEEDLE " + ctx[300<<10:]
	other := longText(2, 4<<10)
	x := New(nil, contextHooks, Options{})
	for i := range 50 {
		for _, m := range []string{"m1", "m2"} {
			x.Add(judged(t, fmt.Sprintf("i%d", i), m, ctx, float64(i%2)), "")
		}
	}
	x.Add(judged(t, "o", "m1", other, 1), "")
	p := write(t, x, nil)
	got := p.contexts()
	if len(got) != 2 {
		t.Fatalf("the page holds %d contexts, want the 2 distinct ones", len(got))
	}
	d := p.detail(t, 0)
	if d.Context == nil || got[d.Context.Hash] != ctx || !d.Context.Kept || d.Context.Bytes != len(ctx) {
		t.Fatalf("item 0's context: %+v", d.Context)
	}
	if h := p.detail(t, 99).Context.Hash; h != d.Context.Hash {
		t.Errorf("two items of one context name it %s and %s", d.Context.Hash, h)
	}
	if len(d.Prompt) != 1 || d.Prompt[0].Text != "Read the text.\nText:\n" || d.Prompt[0].After == nil || *d.Prompt[0].After != "\n\nQuestion: which colour?" {
		t.Errorf("the instruction around the context: %+v", d.Prompt)
	}
	// The excerpt is cut around what the task asks about, and says where.
	if len(d.Context.Excerpts) != 1 || !strings.Contains(d.Context.Excerpts[0].Text, "NEEDLE") || d.Context.Excerpts[0].At < 290<<10 {
		t.Errorf("excerpts %+v, want one around NEEDLE", d.Context.Excerpts)
	}
	// One whole copy, compressed: the page is far smaller than the 101
	// prompts' text.
	if n := len(p.html); n > len(ctx) {
		t.Errorf("the page is %d bytes for 101 items of one %d-byte context", n, len(ctx))
	}
	details, contexts, distinct, kept := x.Sizes()
	if distinct != 2 || kept != 2 || contexts == 0 || details == 0 {
		t.Errorf("Sizes() = %d, %d, %d, %d", details, contexts, distinct, kept)
	}
}

// --html-contexts: auto keeps contexts whole while they fit its budget,
// then excerpts, and says how many; excerpts keeps none whole; full keeps
// every one, over the budget too.
func TestContextModes(t *testing.T) {
	const n = 6
	budget := 0
	var ctxs []string
	for i := range n {
		ctxs = append(ctxs, longText(i+10, 64<<10))
		budget += len(gzipped([]byte(ctxs[i])))
	}
	budget = budget / 2 // about half of them fit
	for _, tt := range []struct {
		mode     string
		kept     func(int) bool
		note     string
		noteless bool
	}{
		{ContextsAuto, func(k int) bool { return k > 0 && k < n }, "distinct contexts are kept as excerpts only", false},
		{ContextsExcerpts, func(k int) bool { return k == 0 }, "kept as excerpts only (--html-contexts excerpts)", false},
		{ContextsFull, func(k int) bool { return k == n }, "", true},
	} {
		x := New(nil, contextHooks, Options{Contexts: tt.mode, ContextBudget: budget})
		for i, c := range ctxs {
			x.Add(judged(t, fmt.Sprint(i), "m", c, 1), "")
		}
		p := write(t, x, nil)
		kept := len(p.contexts())
		if !tt.kept(kept) {
			t.Errorf("%s: %d of %d contexts kept whole", tt.mode, kept, n)
		}
		for i := range n {
			c := p.detail(t, i).Context
			if c == nil || c.Kept != (p.contexts()[c.Hash] != "") || len(c.Excerpts) == 0 {
				t.Errorf("%s: item %d's context %+v", tt.mode, i, c)
			}
		}
		if has := strings.Contains(p.html, tt.note); tt.noteless == (tt.note != "" && has) || !tt.noteless && !has {
			t.Errorf("%s: the page does not say %q", tt.mode, tt.note)
		}
	}
}

// Past the detail budget an item keeps excerpts of its long fields, past
// half as much again it is listed without them, and past MaxItems it is
// counted, not shown; the page says each.
func TestBudgets(t *testing.T) {
	x := New(nil, nil, Options{DetailBudget: 24 << 10, MaxItems: 40})
	reply := longText(3, 20<<10)
	for i := range 50 {
		x.Add(rec(t, fmt.Sprintf(`{"id":"i%d","bench":"b","model":"m","response":{"text":%s},"judgement":{"score":1}}`, i, mustJSON(t, reply))), "")
	}
	p := write(t, x, nil)
	idx := p.index(t)
	if len(idx.Items) != 40 {
		t.Errorf("%d items in the index, want MaxItems (40)", len(idx.Items))
	}
	if d := p.detail(t, 0); d.Reply == nil || *d.Reply != reply || len(d.Cut) > 0 {
		t.Errorf("the first item lost its reply before the budget was spent (cut %v)", d.Cut)
	}
	var cut, bare int
	for i, e := range idx.Items {
		switch {
		case e.Flags&flagLeft != 0:
			if e.Block != -1 {
				t.Errorf("item %d is flagged as listed alone but has block %d", i, e.Block)
			}
			bare++
		case e.Flags&flagCut != 0:
			if d := p.detail(t, i); d.Reply == nil || len(*d.Reply) >= len(reply) || !strings.Contains(*d.Reply, "bytes left out of this page") {
				t.Errorf("item %d is flagged cut but keeps its reply", i)
			}
			if bare > 0 {
				t.Errorf("item %d keeps excerpts after an item listed alone", i)
			}
			cut++
		}
	}
	if cut == 0 || bare == 0 || idx.Items[39].Flags&flagLeft == 0 {
		t.Errorf("%d items cut, %d listed alone, the last one's flags %b", cut, bare, idx.Items[39].Flags)
	}
	for _, want := range []string{"10 records are not in the explorer", "keep only excerpts of their long fields", "items are listed without their prompt, reply and scoring"} {
		if !strings.Contains(p.html, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

func TestExcerpts(t *testing.T) {
	ctx := strings.Repeat("a", 2000) + "NEEDLE" + strings.Repeat("b", 300) + "PIN" + strings.Repeat("c", 3000) + "élan"
	for _, tt := range []struct {
		name  string
		focus []string
		want  []excerpt // At and the text's start and end
	}{
		{"no focus: the head", nil, []excerpt{{0, "aa…aa"}}},
		{"not found: the head", []string{"absent"}, []excerpt{{0, "aa…aa"}}},
		{"two near ones merge", []string{"NEEDLE", "PIN"}, []excerpt{{2000 - excerptRadius, "aa…cc"}}},
		{"the end, whole characters", []string{"élan"}, []excerpt{{len(ctx) - len("élan") - excerptRadius, "cc…an"}}},
	} {
		got := excerpts(ctx, tt.focus)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d excerpts, want %d", tt.name, len(got), len(tt.want))
			continue
		}
		for i, g := range got {
			w := tt.want[i]
			head, tail, _ := strings.Cut(w.Text, "…")
			if g.At != w.At || !strings.HasPrefix(g.Text, head) || !strings.HasSuffix(g.Text, tail) {
				t.Errorf("%s: excerpt at %d %q…%q, want at %d %q…%q", tt.name, g.At, g.Text[:2], g.Text[len(g.Text)-2:], w.At, head, tail)
			}
		}
	}
}

func TestHeadTail(t *testing.T) {
	s := strings.Repeat("é", 1000) // 2,000 bytes of two-byte characters
	if got, cut := headTail(s, 4000); cut || got != s {
		t.Errorf("a short field was cut")
	}
	got, cut := headTail(s, 1001)
	if !cut || !strings.Contains(got, "bytes left out of this page") {
		t.Fatalf("a long field was not cut: %q", got)
	}
	head, tail, _ := strings.Cut(got, "\n[…")
	if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail[strings.Index(tail, "]\n")+2:]) || !strings.Contains(got, " 1000 bytes") {
		t.Errorf("cut into %q … and not on characters", got)
	}
}

// An item's flags and error kind, as the list filters on them.
func TestEntryFlags(t *testing.T) {
	for _, tt := range []struct {
		line  string
		flags int
		kind  string
	}{
		{`{"id":"a","bench":"b","model":"m","judgement":{"score":1}}`, 0, ""},
		{`{"id":"a","bench":"b","model":"m","error":{"kind":"timeout","message":"x"}}`, flagFailed, "timeout"},
		{`{"id":"a","bench":"b","model":"m","error":{"kind":"reasoning_unfinished"}}`, flagFailed | flagUnfinished, "reasoning_unfinished"},
		{`{"id":"a","bench":"b","model":"m","response":{"text":"x","server_truncated":true},"judgement":{"score":0}}`, flagTruncated, ""},
	} {
		e := source{rec: rec(t, tt.line)}.entryOf("")
		if e.Flags != tt.flags || e.Error != tt.kind {
			t.Errorf("%s: flags %b, kind %q; want %b, %q", tt.line, e.Flags, e.Error, tt.flags, tt.kind)
		}
	}
}

// The run diff pairs the items two answerers both answered whose scores
// differ; an item that failed on one side only is a flip, one answered
// by one side only is not.
func TestFlips(t *testing.T) {
	one := func(v float64) *float64 { return &v }
	es := []entry{
		{ID: "1", Bench: "b", Model: "a", Score: one(1)},
		{ID: "1", Bench: "b", Model: "c", Score: one(0)}, // flip
		{ID: "2", Bench: "b", Model: "a", Score: one(1)},
		{ID: "2", Bench: "b", Model: "c", Score: one(1)},
		{ID: "3", Bench: "b", Model: "a", Score: one(1)},
		{ID: "3", Bench: "b", Model: "c"},                // failed on one side: flip
		{ID: "4", Bench: "b", Model: "a", Score: one(0)}, // only a
		{ID: "1", Bench: "z", Model: "c", Score: one(1)}, // another bench
	}
	got := flips(es)
	if len(got) != 1 || got[0].A != "a" || got[0].B != "c" || got[0].Both != 3 {
		t.Fatalf("flips %+v", got)
	}
	if want := [][2]int{{0, 1}, {4, 5}}; fmt.Sprint(got[0].Pairs) != fmt.Sprint(want) {
		t.Errorf("pairs %v, want %v", got[0].Pairs, want)
	}
}

// Strings of a record reach the page only inside the compressed data (read
// by the script with textContent) or escaped: nothing in them can end a
// script or open an element.
func TestPageHoldsNoMarkupFromRecords(t *testing.T) {
	bad := `</script><script>alert(1)</script><img src=x onerror=alert(2)>`
	x := New(nil, nil, Options{})
	x.Add(rec(t, fmt.Sprintf(`{"id":%q,"bench":%q,"model":%q,"source":%q,"response":{"text":%q,"tokenizer":%q},"judgement":{"score":1,"judge":{"model":%q}}}`, bad, bad, bad, bad, bad, bad, bad)), "")
	rows := []report.Row{{Bench: bad, Model: bad, Metric: "m", Value: 1, N: 1, Run: bad, Version: bad, Created: bad, Dims: map[string]string{"source": bad}}}
	p := write(t, x, rows)
	if n, m := strings.Count(p.html, "<script"), strings.Count(p.html, "</script>"); n != m || n != len(p.blobs)+2 { // the blobs, x-sels, the script
		t.Errorf("%d <script and %d </script> for %d blobs", n, m, len(p.blobs))
	}
	for _, s := range []string{"<img", "<script>alert"} { // escaped, the text may stay
		if strings.Contains(p.html, s) {
			t.Errorf("the page holds %q raw", s)
		}
	}
	if !strings.Contains(string(p.blobs["x-index"]), `\u003c/script\u003e`) && !strings.Contains(string(p.blobs["x-index"]), `</script>`) {
		t.Errorf("the index lost the id")
	}
}
