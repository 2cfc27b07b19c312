package explore

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
)

// entry is one item in the explorer's index: what the list shows and
// filters on. The names are short: the index of every item is read when
// the page opens.
type entry struct {
	ID      string              `json:"id"`
	Bench   string              `json:"b"`
	Model   string              `json:"m"`
	Run     string              `json:"r"`
	Task    string              `json:"t,omitempty"`
	Parent  string              `json:"pa,omitempty"` // the record a check was split from
	Keys    map[string][]string `json:"k,omitempty"`
	Score   *float64            `json:"s"`
	Verdict string              `json:"v,omitempty"`
	Flags   int                 `json:"f,omitempty"`
	Error   string              `json:"e,omitempty"`
	Block   int                 `json:"bl"` // the detail's block, -1 for none (flagLeft)
	Pos     int                 `json:"p"`  // and its place in it
	// judge is the judge model the record is for, which names its model
	// apart where several judged the model's records (Write).
	judge string
}

// Flags of an entry.
const (
	flagFailed     = 1 << iota // the record carries an error
	flagTruncated              // response.server_truncated: the server cut the prompt
	flagUnfinished             // error kind reasoning_unfinished: cut while thinking
	flagCut                    // the page's size limit cut the detail to excerpts
	flagLeft                   // the page's size limit left the detail out
)

// detail is what opening an item shows: everything but the index.
type detail struct {
	Prompt    []message         `json:"prompt,omitempty"`
	Context   *contextRef       `json:"context,omitempty"`
	Reply     *string           `json:"reply,omitempty"` // nil: the record holds no reply text
	Reasoning string            `json:"reasoning,omitempty"`
	Part      json.RawMessage   `json:"part,omitempty"` // the part of a reply a check reads
	PartOf    string            `json:"part_of,omitempty"`
	Parent    string            `json:"parent,omitempty"`
	Gold      json.RawMessage   `json:"gold,omitempty"`
	Judgement json.RawMessage   `json:"judgement,omitempty"`
	Rules     map[string]string `json:"rules,omitempty"`    // Hooks.Points
	Findings  []Finding         `json:"findings,omitempty"` // Hooks.Findings
	Error     json.RawMessage   `json:"error,omitempty"`
	Response  json.RawMessage   `json:"response,omitempty"` // without its text and reasoning
	Cut       []string          `json:"cut,omitempty"`      // the fields kept as excerpts
}

// message is one prompt message; a message holding the long context is
// split around it (Text before, After after).
type message struct {
	Role  string  `json:"role"`
	Text  string  `json:"text"`
	After *string `json:"after,omitempty"`
}

// contextRef is the long context of an item's prompt: its size, excerpts
// around what the task asks about, and the hash under which the page keeps
// it whole (Kept false when only the excerpts are in the page).
type contextRef struct {
	Hash     string    `json:"hash"`
	Chars    int       `json:"chars"`
	Bytes    int       `json:"bytes"`
	Kept     bool      `json:"kept"`
	Excerpts []excerpt `json:"excerpts"`
	Focus    []string  `json:"focus,omitempty"` // marked in the excerpts
}

// excerpt is a piece of a context starting at character At.
type excerpt struct {
	At   int    `json:"at"`
	Text string `json:"text"`
}

// Sizes of what one item keeps: the excerpt around each thing the task
// asks about, and the limits past which a field is kept as its head and
// tail (always, and once the page's budget is spent).
const (
	excerptRadius = 400
	maxFocus      = 3
	fieldLimit    = 256 << 10
	degradedLimit = 2 << 10
)

// source is one record as the explorer reads it.
type source struct {
	rec   *record.Record
	hooks Hooks
}

// promptOf reads the request's messages (chat) or prompt (completions).
func (s source) promptOf() []message {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Prompt json.RawMessage `json:"prompt"`
	}
	if !s.rec.Has("request") || s.rec.Decode("request", &req) != nil {
		return nil
	}
	var out []message
	for _, m := range req.Messages {
		out = append(out, message{Role: m.Role, Text: contentText(m.Content)})
	}
	if len(req.Prompt) > 0 {
		var p string
		if record.Unmarshal(req.Prompt, &p) != nil {
			p = string(req.Prompt) // a prompt of tokens or several prompts: shown as sent
		}
		out = append(out, message{Role: "prompt", Text: p})
	}
	return out
}

// contentText is a message's text: a string content through
// record.Unquote (one copy of a 500 KB prompt, where the JSON decoder grows
// its buffer many times), parts as lib/oai reads them.
func contentText(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		if s, err := record.Unquote(raw); err == nil {
			return s
		}
	}
	return oai.ContentText(raw)
}

// contextIn finds the long context in a message's text: the benchmark's
// Hooks.Context, else the longest string of the record's "context" (its
// own value, or one of its fields) found in the text.
func (s source) contextIn(text string) (start, end int, ok bool) {
	if s.hooks.Context != nil {
		if i, j, ok := s.hooks.Context(s.rec, text); ok && 0 <= i && i < j && j <= len(text) {
			return i, j, true
		}
	}
	raw := s.rec.Raw("context")
	if raw == nil {
		return 0, 0, false
	}
	var cands []string
	var one string
	var fields map[string]json.RawMessage
	switch {
	case record.Unmarshal(raw, &one) == nil:
		cands = append(cands, one)
	case record.Unmarshal(raw, &fields) == nil:
		for _, v := range fields {
			if record.Unmarshal(v, &one) == nil {
				cands = append(cands, one)
			}
		}
	}
	// Longest first, and the same order whatever the map's: one context.
	slices.SortFunc(cands, func(a, b string) int { return len(b) - len(a) })
	for _, c := range cands {
		if len(c) < minContext {
			break
		}
		if i := strings.Index(text, c); i >= 0 {
			return i, i + len(c), true
		}
	}
	return 0, 0, false
}

// minContext is the shortest text the explorer keeps apart from the
// instruction as a context: shorter ones read as part of it.
const minContext = 1 << 10

// excerpts cuts a context around what the task asks about (each of focus
// found in it, first occurrence), else its head; pieces that overlap are
// merged.
func excerpts(ctx string, focus []string) []excerpt {
	type span struct{ i, j int }
	var spans []span
	for _, f := range focus {
		if f == "" || len(spans) == maxFocus {
			continue
		}
		if k := strings.Index(ctx, f); k >= 0 {
			spans = append(spans, span{max(0, k-excerptRadius), min(len(ctx), k+len(f)+excerptRadius)})
		}
	}
	if len(spans) == 0 {
		spans = append(spans, span{0, min(len(ctx), 2*excerptRadius)})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.i - b.i })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp.i <= last.j {
			last.j = max(last.j, sp.j)
		} else {
			merged = append(merged, sp)
		}
	}
	out := make([]excerpt, len(merged))
	for i, sp := range merged {
		out[i] = cutAt(ctx, sp.i, sp.j)
	}
	return out
}

// cutAt is ctx[i:j] on character boundaries, at its character offset.
func cutAt(ctx string, i, j int) excerpt {
	for i > 0 && !utf8.RuneStart(ctx[i]) {
		i--
	}
	for j < len(ctx) && !utf8.RuneStart(ctx[j]) {
		j++
	}
	return excerpt{At: utf8.RuneCountInString(ctx[:i]), Text: ctx[i:j]}
}

// headTail keeps the head and tail of a string longer than limit, with a
// line saying how much was left out between them.
func headTail(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	head, tail := limit*3/4, limit/4
	a := cutAt(s, 0, head).Text
	b := cutAt(s, len(s)-tail, len(s)).Text
	return a + "\n[… " + strconv.Itoa(len(s)-len(a)-len(b)) + " bytes left out of this page …]\n" + b, true
}

// entryOf reads the index entry of a record.
func (s source) entryOf(run string) entry {
	rec := s.rec
	sc := aggregate.ScoredOf(rec, run) // as --items and --flips read it
	e := entry{ID: sc.ID, Bench: sc.Bench, Model: sc.Model, Run: run, Task: sc.Task, Parent: rec.String("parent"),
		Score: sc.Score, Verdict: sc.Verdict, Error: sc.ErrKind, judge: sc.Judge}
	keys := map[string][]string{}
	for k, v := range sc.Group {
		keys[k] = []string{v}
	}
	var j struct {
		Judge *struct {
			Model string `json:"model"`
		} `json:"judge"`
	}
	if rec.Has("judgement") && rec.Decode("judgement", &j) == nil && j.Judge != nil && j.Judge.Model != "" {
		keys["judge"] = []string{j.Judge.Model} // the rows of LLM-judged benchmarks are per judge
	}
	if s.hooks.Keys != nil {
		for k, vs := range s.hooks.Keys(rec) {
			keys[k] = vs
		}
	}
	if len(keys) > 0 {
		e.Keys = keys
	}
	if sc.Failed {
		e.Flags |= flagFailed
	}
	if sc.Truncated {
		e.Flags |= flagTruncated
	}
	var resp struct {
		Unfinished bool `json:"reasoning_unfinished"`
	}
	if e.Error == reasoning.KindUnfinished || rec.Has("response") && rec.Decode("response", &resp) == nil && resp.Unfinished {
		e.Flags |= flagUnfinished
	}
	return e
}
