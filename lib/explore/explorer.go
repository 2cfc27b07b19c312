package explore

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// What --html-contexts keeps of each distinct context: ContextsAuto keeps
// it whole while the contexts kept, compressed, fit in the page's budget
// for them, and only excerpts past it; ContextsFull always whole;
// ContextsExcerpts never.
const (
	ContextsAuto     = "auto"
	ContextsFull     = "full"
	ContextsExcerpts = "excerpts"
)

// CheckContexts refuses a --html-contexts value that is not one of the three.
func CheckContexts(v string) error {
	switch v {
	case "", ContextsAuto, ContextsFull, ContextsExcerpts:
		return nil
	}
	return app.Usagef("--html-contexts %q: want %s (the default), %s or %s", v, ContextsAuto, ContextsFull, ContextsExcerpts)
}

// Budgets of the page, in compressed bytes (the page holds them in base64,
// 4/3 as much): contexts 5 MB, details 8 MB then 4 MB more of excerpts,
// and an index of at most 150,000 items (about 3 MB) keep a page under
// about 25 MB, which a browser opens in a second or two. Past the detail
// budget an item keeps excerpts of its long fields, past half as much again
// it is listed without its details, and past MaxItems it is counted, not
// shown.
const (
	DefaultContextBudget = 5 << 20
	DefaultDetailBudget  = 8 << 20
	DefaultMaxItems      = 150_000
	maxWholeContext      = 4 << 20 // a longer context is kept whole only with --html-contexts full
	blockBytes           = 256 << 10
)

// Options shape the explorer; a zero budget is the default.
type Options struct {
	Contexts                    string
	ContextBudget, DetailBudget int
	MaxItems                    int
	Decimals                    int
	Reference                   string // the --reference file, named on the page
}

// Explorer collects the records of an aggregate-ifs run for the page's
// item explorer and writes the page: an aggregate.Page.
type Explorer struct {
	opt      Options
	hooks    map[string]Hooks
	sections []plot.Section

	entries     []entry
	blocks      [][]byte // gzip of each finished block of details
	cur         bytes.Buffer
	curN        int
	detailBytes int
	cut         int // items whose details were cut to excerpts for the budget
	left        int // items past MaxItems
	bare        int // items listed without their details

	contexts     map[string]*stored
	contextBytes int
	recent       [4]hashed // the last contexts hashed, newest first

}

type hashed struct{ text, hash string }

// stored is one distinct context: its size and, when kept whole, gzip.
type stored struct {
	chars int
	gz    []byte
}

// New is an explorer for the benchmarks' sections and hooks (by bench name).
func New(sections []plot.Section, hooks map[string]Hooks, opt Options) *Explorer {
	if opt.Contexts == "" {
		opt.Contexts = ContextsAuto
	}
	if opt.ContextBudget <= 0 {
		opt.ContextBudget = DefaultContextBudget
	}
	if opt.DetailBudget <= 0 {
		opt.DetailBudget = DefaultDetailBudget
	}
	if opt.MaxItems <= 0 {
		opt.MaxItems = DefaultMaxItems
	}
	return &Explorer{opt: opt, hooks: hooks, sections: sections, contexts: map[string]*stored{}}
}

// Add takes one record read by aggregate-ifs ("" run: this run's own).
func (x *Explorer) Add(rec *record.Record, run string) {
	s := source{rec: rec, hooks: x.hooks[rec.String("bench")]}
	e := s.entryOf(run)
	if len(x.entries) >= x.opt.MaxItems {
		x.left++
		return
	}
	if x.spent() > x.opt.DetailBudget*3/2 {
		e.Block, e.Flags = -1, e.Flags|flagLeft
		x.bare++
		x.entries = append(x.entries, e)
		return
	}
	d := x.detailOf(s, &e)
	b, err := json.Marshal(d)
	if err != nil { // only a value json cannot hold (never from parsed JSON)
		b = []byte("{}")
	}
	if x.curN > 0 {
		x.cur.WriteByte(',')
	}
	x.cur.Write(b)
	e.Block, e.Pos = len(x.blocks), x.curN
	x.curN++
	x.entries = append(x.entries, e)
	if x.cur.Len() >= blockBytes {
		x.flush()
	}
}

// flush compresses the block of details being filled.
func (x *Explorer) flush() {
	if x.curN == 0 {
		return
	}
	gz := gzipped(append(append([]byte{'['}, x.cur.Bytes()...), ']'))
	x.detailBytes += len(gz)
	x.blocks = append(x.blocks, gz)
	x.cur.Reset()
	x.curN = 0
}

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// spent is about how much of the detail budget is used: the blocks
// compressed, and the one being filled as it will compress (about 4:1).
func (x *Explorer) spent() int { return x.detailBytes + x.cur.Len()/4 }

// detailOf reads what opening the item shows; once the detail budget is
// spent, its long fields are kept as excerpts.
func (x *Explorer) detailOf(s source, e *entry) detail {
	rec := s.rec
	var d detail
	limit := fieldLimit
	if x.spent() > x.opt.DetailBudget {
		limit = degradedLimit
	}
	cutText := func(field, v string) string {
		t, cut := headTail(v, limit)
		if cut && !slices.Contains(d.Cut, field) {
			d.Cut = append(d.Cut, field)
		}
		return t
	}
	cutRaw := func(field string, raw []byte) json.RawMessage {
		if len(raw) <= limit {
			return json.RawMessage(raw)
		}
		b, _ := json.Marshal(cutText(field, string(raw)))
		return b
	}
	msgs := s.promptOf()
	for i := len(msgs) - 1; i >= 0; i-- {
		if a, b, ok := s.contextIn(msgs[i].Text); ok {
			after := cutText("prompt", msgs[i].Text[b:])
			d.Context = x.context(msgs[i].Text[a:b], s)
			msgs[i].Text, msgs[i].After = msgs[i].Text[:a], &after
			break
		}
	}
	for i := range msgs {
		msgs[i].Text = cutText("prompt", msgs[i].Text)
	}
	d.Prompt = msgs
	var resp map[string]json.RawMessage
	if rec.Has("response") && rec.Decode("response", &resp) == nil && resp != nil {
		var text string
		if raw, ok := resp["text"]; ok && record.Unmarshal(raw, &text) == nil {
			t := cutText("reply", text)
			d.Reply = &t
		}
		var reasoning string
		if raw, ok := resp["reasoning"]; ok && record.Unmarshal(raw, &reasoning) == nil {
			d.Reasoning = cutText("reasoning", reasoning)
		}
		// The reply and its trace are shown apart; the text as received
		// stays in the records.
		delete(resp, "text")
		delete(resp, "reasoning")
		delete(resp, "raw_text")
		d.Response, _ = json.Marshal(resp)
	}
	for _, k := range []string{"segment", "entry"} { // split-subtasks: the part a check reads
		if raw := rec.Raw(k); raw != nil {
			d.Part, d.PartOf = cutRaw("part", raw), k
			break
		}
	}
	d.Parent = rec.String("parent")
	d.Gold = cutRaw("gold", rec.Raw("gold"))
	d.Judgement = cutRaw("judgement", rec.Raw("judgement"))
	d.Error = cutRaw("error", rec.Raw("error"))
	if s.hooks.Points != nil && rec.Has("judgement") {
		d.Rules = s.hooks.Points(rec)
	}
	if s.hooks.Findings != nil {
		d.Findings = s.hooks.Findings(rec)
		for i := range d.Findings {
			for k, v := range d.Findings[i].Values {
				d.Findings[i].Values[k] = cutText("findings", v)
			}
		}
	}
	if len(d.Cut) > 0 {
		e.Flags |= flagCut
		if limit == degradedLimit {
			x.cut++
		}
	}
	return d
}

// context keeps a context once by content hash (whole when the mode and
// budget allow) and returns the item's reference to it, with excerpts
// around what the task asks about.
func (x *Explorer) context(ctx string, s source) *contextRef {
	h := x.hashOf(ctx)
	st, seen := x.contexts[h]
	if !seen {
		st = &stored{chars: utf8.RuneCountInString(ctx)}
		keep := x.opt.Contexts == ContextsFull ||
			x.opt.Contexts == ContextsAuto && len(ctx) <= maxWholeContext && x.contextBytes < x.opt.ContextBudget
		if keep {
			gz := gzipped([]byte(ctx))
			if x.opt.Contexts == ContextsFull || x.contextBytes+len(gz) <= x.opt.ContextBudget {
				st.gz = gz
				x.contextBytes += len(gz)
			}
		}
		x.contexts[h] = st
	}
	var focus []string
	if s.hooks.Focus != nil {
		for _, f := range s.hooks.Focus(s.rec) {
			if f != "" && len(f) <= excerptRadius && strings.Contains(ctx, f) {
				focus = append(focus, f)
			}
		}
	}
	return &contextRef{Hash: h, Chars: st.chars, Bytes: len(ctx), Kept: st.gz != nil, Excerpts: excerpts(ctx, focus), Focus: focus}
}

// hashOf names a context by its content. Records that share a context
// mostly come one after another (LIFBench: hundreds of prompts per list), so
// the last few contexts are compared first: a comparison costs a fraction
// of a hash of a 500 KB context.
func (x *Explorer) hashOf(ctx string) string {
	for _, r := range x.recent {
		if r.text == ctx {
			return r.hash
		}
	}
	sum := sha256.Sum256([]byte(ctx))
	h := hex.EncodeToString(sum[:16])
	copy(x.recent[1:], x.recent[:])
	x.recent[0] = hashed{ctx, h}
	return h
}

// Write writes the page: the provenance table, lib/plot's figures linked
// to the items behind them, and the explorer.
func (x *Explorer) Write(w io.Writer, rows, reference []report.Row, prov *aggregate.Provenance) error {
	x.flush()
	for i := range x.entries {
		e := &x.entries[i]
		// Named as the rows name them: a model judged by several judges
		// is one per judge.
		e.Model = prov.Label(e.Bench, e.Model, e.Run, e.judge)
		if e.Run == "" {
			e.Run = prov.Run()
		}
	}
	pg := plot.Page{Reference: x.opt.Reference, Decimals: x.opt.Decimals, Targets: len(x.entries) > 0,
		Provenance: prov.Table(rows), About: prov.About}
	if len(x.entries) > 0 {
		var b bytes.Buffer
		if err := x.writeExplorer(&b); err != nil {
			return err
		}
		pg.Explorer = b.String()
	} else if len(rows) > 0 {
		pg.Explorer = "<section id=\"explorer\"><h2>The items behind the figures</h2><p>This page was made from metric rows (--import rows or --import of official scores): it holds no records to explore. aggregate-ifs --html over the judged records adds them.</p></section>\n"
	}
	return plot.WriteHTML(w, rows, reference, x.sections, pg)
}

// Sizes reports what the page holds: compressed bytes of the details and
// of the contexts kept whole, and the number of distinct contexts and of
// those kept whole (bench/explorer prints them).
func (x *Explorer) Sizes() (details, contexts, distinct, kept int) {
	for _, st := range x.contexts {
		if st.gz != nil {
			kept++
		}
	}
	return x.detailBytes, x.contextBytes, len(x.contexts), kept
}

// notes say what the page left out.
func (x *Explorer) notes() []string {
	var out []string
	if x.left > 0 {
		out = append(out, fmt.Sprintf("%d records are not in the explorer: it holds the first %d read, so that the page stays quick to open. The tables and figures count every record.", x.left, x.opt.MaxItems))
	}
	if x.cut > 0 {
		out = append(out, fmt.Sprintf("%d items keep only excerpts of their long fields (prompt, reply, gold): the page holds about %d MB of item details in full.", x.cut, x.opt.DetailBudget>>20))
	}
	if x.bare > 0 {
		out = append(out, fmt.Sprintf("%d items are listed without their prompt, reply and scoring: the page holds at most about %d MB of item details. Their records have them; aggregate-ifs over fewer records (one model, one benchmark) makes a page that holds them.", x.bare, x.opt.DetailBudget*3/2>>20))
	}
	dropped := 0
	for _, st := range x.contexts {
		if st.gz == nil {
			dropped++
		}
	}
	switch {
	case dropped == 0:
	case x.opt.Contexts == ContextsExcerpts:
		out = append(out, fmt.Sprintf("The %d distinct contexts are kept as excerpts only (--html-contexts excerpts).", dropped))
	default:
		out = append(out, fmt.Sprintf("%d of %d distinct contexts are kept as excerpts only: the page holds at most about %d MB of whole contexts, and none over %d MB (--html-contexts full keeps every one whole).", dropped, len(x.contexts), x.opt.ContextBudget>>20, maxWholeContext>>20))
	}
	return out
}
