package tokens

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ifkit/ifkit/lib/record"
)

// uQuote is a JSON string of s with every character outside printable
// ASCII, and '/', written as \u escapes: the escapes another encoder
// might choose, line feeds included.
func uQuote(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r >= 0x20 && r < 0x7f && r != '/':
			b = append(b, byte(r))
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			b = fmt.Appendf(b, `\u%04x\u%04x`, r1, r2)
		default:
			b = fmt.Appendf(b, `\u%04x`, r)
		}
	}
	return append(b, '"')
}

// checkQuoted fails unless CountQuoted of each way to write text as JSON
// is Count of the text the JSON holds (text, but for invalid UTF-8, which
// the encoders write as U+FFFD).
func checkQuoted(t *testing.T, e *Encoder, text string) {
	t.Helper()
	for _, raw := range [][]byte{record.Quote(text), uQuote(text)} {
		s, err := record.Unquote(raw)
		if err != nil {
			t.Fatal(err)
		}
		want := e.Count(s)
		for round := range 2 { // counted, then remembered
			if got, err := e.CountQuoted(context.Background(), raw); err != nil || got != want {
				t.Fatalf("CountQuoted (round %d) of %.60q… (%d bytes) = %d, %v; Count gives %d", round, raw, len(raw), got, err, want)
			}
		}
	}
}

// A text counted from its JSON, in chunks of escaped bytes cut after a
// line feed, has the count of the text, wherever the cuts fall: before a
// line that starts with a space, a tab, '/', a backslash or a character
// outside ASCII (where no cut may be), after a backslash followed by n in
// the text, in code, CJK and emoji, and for contexts shared by prompts.
func TestCountQuoted(t *testing.T) {
	e := MustGet("o200k_base")
	lines := []string{
		"func f(a int) error {", "\treturn fmt.Errorf(\"x %d\", a)", "}", "// a comment", "  indented",
		" one space", "/// doc", `a\nb literal backslash-n`, `\\`, "中文字符的一行", "😀👍🏽 emoji", "\u00a0no-break", "",
		"x = 1", "\u3000ideographic space", "</tag> & <b>", "\\\\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < 60<<10; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteString(strings.Repeat("\n", 1+i%3))
	}
	context := b.String()
	checkQuoted(t, e, context)
	for _, tail := range []string{"\n\nInstruction: answer question 1.", "\nInstruction: answer question 2.", ""} {
		checkQuoted(t, e, context+tail)
	}
	// One kind of line repeated, shifted by each length up to a line's, so
	// that a cut is tried at every place in it: after a line that ends in
	// punctuation ("x;\n/" is one piece), before a line of spaces ("\n \n"
	// is one token), after a backslash followed by n in the text ("nothing"
	// is one).
	for _, line := range append(lines, "a;\n/b", "x;\n//y", "x\n \ny", `see C:\nothing here`) {
		for shift := range len(line) + 2 {
			checkQuoted(t, e, strings.Repeat("x", shift)+strings.Repeat(line+"\n", (20<<10)/(len(line)+1)+1))
		}
	}
	checkQuoted(t, e, strings.Repeat("no line feed at all ", 2000))
	// A short text is unquoted and counted whole.
	checkQuoted(t, e, "short\ntext")
}

// Any text, made long by repeating it on lines, counts the same from its
// JSON as from itself.
func FuzzCountQuoted(f *testing.F) {
	for _, s := range []string{"a", " b", "\tc", "/d", "\\n", "中", "x\u2028y", "\xff", "\"q\""} {
		f.Add(s, uint8(3))
	}
	e := MustGet("o200k_base")
	f.Fuzz(func(t *testing.T, s string, sep uint8) {
		if s == "" || len(s) > 256 {
			return
		}
		end := strings.Repeat("\n", int(sep%3)+1)
		checkQuoted(t, e, strings.Repeat(s+end, (20<<10)/(len(s)+len(end))+1))
	})
}
