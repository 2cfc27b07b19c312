package longgenbench

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/split"
)

// CheckGold is a child's gold: one check.
type CheckGold struct {
	Check string `json:"check"` // single, range or periodic
	Entry int    `json:"entry"`
	Event string `json:"event"`
	Label string `json:"label"` // the entry label, e.g. "Week"
}

// Entry is the part of the output a check is about.
type Entry struct {
	Found bool   `json:"found"`
	Text  string `json:"text,omitempty"`
}

// Counts describe the whole output a child was split from; every child of a
// parent carries them, so aggregate-ifs can compute CR and word counts
// without the parent.
type Counts struct {
	Number       int             `json:"number"`               // entries expected
	LastEntry    int             `json:"last_entry,omitempty"` // see Gold.LastEntry
	Found        int             `json:"found"`                // distinct entries 1..number present
	Blocks       int             `json:"blocks"`               // pieces of the output split on #*# (the official count)
	Words        int             `json:"words"`                // whitespace-separated words of prefix + text
	Checks       int             `json:"checks"`               // children of this parent
	FinishReason string          `json:"finish_reason,omitempty"`
	Error        json.RawMessage `json:"error,omitempty"` // the parent's inference error: its output is empty
	// Entries is "strict" when split-subtasks --rubric strict read the
	// entries, so that a report can say its CR is not the official one.
	Entries string `json:"entries,omitempty"`
	// OverLimit counts the pieces the official evaluator cannot read
	// (Entries.OverLimit), so that a report can say so.
	OverLimit int `json:"int_over_limit,omitempty"`
}

// CR is the completion rate of the parent in [0,1].
func (c Counts) CR() float64 { return float64(c.Found) / float64(c.Number) }

// Entries is a parsed output: the text of every entry that was claimed,
// first claim wins.
type Entries struct {
	Text   map[int]string
	Blocks int
	Words  int
	// OverLimit counts the pieces whose first match (official mode) is a
	// number of more than pystr.IntMaxStrDigits digits: the official
	// evaluator's int() raises ValueError on it on Python 3.10.7+ and the
	// evaluation stops, so the output has no official score. Such a piece
	// claims no entry, as it would without the limit (the number names none).
	OverLimit int
}

// ParseEntries splits prefix + generated text as the official evaluator
// does: pieces between "#*#", each claimed by the first match of
// re.search(rf"{type} (\d+)", piece) in it (case-sensitive; \d is any
// Unicode decimal digit and int() reads every script's digits), the first
// piece to claim an entry winning. Official mode keeps the regex's quirks:
// "Week 5" matches inside "Menu Week 5" and "Floor 2" inside "SubFloor 2",
// and a piece whose first match is a number beyond int64 claims no entry
// (Python reads it, but it names no entry; beyond 4,300 digits Python 3.10.7
// and later raise instead: Entries.OverLimit). Strict mode skips such
// matches and looks further in the piece: the label must start a word, must
// not follow "Menu " (unless the label is itself a Menu one), and the number
// must fit.
func ParseEntries(output, label string, strict bool) Entries {
	blocks := strings.Split(output, Separator)
	e := Entries{Text: map[int]string{}, Blocks: len(blocks), Words: pystr.CountFields(output)}
	for _, b := range blocks {
		n, ok, over := entryNumber(b, label, strict)
		if over {
			e.OverLimit++
		}
		if !ok {
			continue
		}
		if _, dup := e.Text[n]; !dup {
			e.Text[n] = strings.TrimSpace(b)
		}
	}
	return e
}

// entryNumber is the entry a piece claims; over reports a first match
// (official mode) of more digits than Python's int() reads.
func entryNumber(block, label string, strict bool) (n int, ok, over bool) {
	needle := label + " "
	for off := 0; ; {
		i := strings.Index(block[off:], needle)
		if i < 0 {
			return 0, false, false
		}
		i += off
		off = i + len(needle)
		j := off
		for j < len(block) {
			r, size := utf8.DecodeRuneInString(block[j:])
			if !pystr.IsDecimal(r) {
				break
			}
			j += size
		}
		if j == off {
			continue
		}
		if strict && (gluedToWord(block[:i]) || !strings.HasPrefix(label, "Menu ") && strings.HasSuffix(block[:i], "Menu ")) {
			continue
		}
		n, ok := pystr.Atoi(block[off:j])
		if !ok && strict {
			continue
		}
		return n, ok, utf8.RuneCountInString(block[off:j]) > pystr.IntMaxStrDigits
	}
}

// gluedToWord says whether text ends in a letter, so that a label right
// after it is the tail of a longer word ("SubFloor").
func gluedToWord(text string) bool {
	r, _ := utf8.DecodeLastRuneInString(text)
	return unicode.IsLetter(r)
}

// Split is the split-subtasks splitter in official mode: one child per
// check, carrying the entry's text (or none when the entry is missing) and
// the parent's counts. A record that failed inference, or whose response was
// cut off, is split as far as its text goes, so every check is counted.
func Split(rec *record.Record, emit func(*record.Record) error) error {
	return splitRecord(rec, emit, false)
}

// SplitStrict is Split with the official entry regex's quirks fixed (see
// ParseEntries): split-subtasks --rubric strict.
func SplitStrict(rec *record.Record, emit func(*record.Record) error) error {
	return splitRecord(rec, emit, true)
}

func splitRecord(rec *record.Record, emit func(*record.Record) error, strict bool) error {
	var g Gold
	if err := rec.Decode("gold", &g); err != nil {
		return app.Invalid(err)
	}
	if g.Number <= 0 || g.Type == "" {
		return app.Invalidf("record %q: gold needs type and number", rec.ID())
	}
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		return app.Invalid(err)
	}
	if !rec.Has("response") && !rec.Errored() {
		return app.Invalidf("record %q has neither response nor error: run infer-batch first", rec.ID())
	}
	// A failed inference has no output at all, not even the prefix the
	// prompt ended with: every entry is missing.
	output := ""
	if rec.Has("response") {
		output = g.Prefix + resp.Text
	}
	parsed := ParseEntries(output, g.Type, strict)
	type child struct {
		typ   string
		entry int
		event string
	}
	// Children come out by type, then by entry: maps have no order.
	var kids []child
	for _, t := range CheckTypes {
		first := len(kids)
		for k, ev := range g.Checks.byType(t) {
			n, err := strconv.Atoi(strings.TrimSpace(k))
			if err != nil || n < 1 || n > g.limit() {
				return app.Invalidf("record %q: %s check at entry %q is outside 1..%d", rec.ID(), t, k, g.limit())
			}
			kids = append(kids, child{t, n, ev})
		}
		slices.SortFunc(kids[first:], func(a, b child) int { return a.entry - b.entry })
	}
	if len(kids) == 0 {
		return app.Invalidf("record %q has no checks", rec.ID())
	}
	counts := Counts{Number: g.Number, LastEntry: g.LastEntry, Blocks: parsed.Blocks, Words: parsed.Words, Checks: len(kids), FinishReason: resp.FinishReason, OverLimit: parsed.OverLimit}
	for n := range parsed.Text {
		if n >= 1 && n <= g.Number {
			counts.Found++
		}
	}
	if rec.Errored() {
		counts.Error = rec.Raw("error")
	}
	if strict {
		counts.Entries = "strict"
	}
	for _, k := range kids {
		c := record.New(split.ChildID(rec.ID(), fmt.Sprintf("%s-%d", k.typ, k.entry)))
		c.Set("parent", rec.ID())
		for _, f := range []string{"bench", "task", "group", "model", record.SourceField} {
			if raw := rec.Raw(f); raw != nil {
				c.SetRaw(f, raw)
			}
		}
		c.Set("gold", CheckGold{Check: k.typ, Entry: k.entry, Event: k.event, Label: g.Type})
		t, ok := parsed.Text[k.entry]
		c.Set("entry", Entry{Found: ok, Text: t})
		c.Set("split", counts)
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}
