package tokens

import (
	"context"
	"maps"
	"strings"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

func TestCountKnownStrings(t *testing.T) {
	e := MustGet("o200k_base")
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"Hello, world! This is a test of tiktoken-go offline loading. 日本語も.", 20},
	} {
		if got := e.Count(tc.in); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// The ranks are parsed as tiktoken-go-loader parses them.
func TestParseRanksMatchesLoader(t *testing.T) {
	for _, name := range Names {
		want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		got, err := loader.LoadTiktokenBpe(name + ".tiktoken")
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("%s: %d ranks (%v), the loader's %d", name, len(got), err, len(want))
		}
	}
}

func TestLongTextIsChunkedButCloseAndFast(t *testing.T) {
	e := MustGet("o200k_base")
	s := strings.Repeat("The quick brown fox jumps over the lazy dog.\n", 2000)
	tk, err := e.c.(*tiktokenCodec).tiktoken()
	if err != nil {
		t.Fatal(err)
	}
	whole := len(tk.Encode(s, nil, nil))
	if got := e.Count(s); got != whole {
		t.Errorf("chunked count %d, whole %d: chunks cut at newlines must not change the count", got, whole)
	}
	// Counted again, from remembered chunks, and with another ending.
	if got := e.Count(s); got != whole {
		t.Errorf("second count %d, whole %d", got, whole)
	}
	tail := s + "Instruction: name the fox."
	if got, want := e.Count(tail), len(e.Encode(tail)); got != want {
		t.Errorf("shared chunks, new tail: count %d, encode %d", got, want)
	}
	spaces := strings.Repeat(" ", 100000)
	if got := e.Count(spaces); got == 0 {
		t.Error("no tokens for 100k spaces")
	}
}

func TestDropLast(t *testing.T) {
	e := MustGet("cl100k_base")
	s := "one two three four five six"
	kept, total := e.DropLast(s, 3)
	if kept != "one two three" || total != 6 {
		t.Errorf("DropLast = %q, %d", kept, total)
	}
	if kept, total := e.DropLast(s, 9); kept != "" || total != 6 {
		t.Errorf("DropLast past the start = %q, %d", kept, total)
	}
	if _, err := Get("nope"); err == nil {
		t.Error("unknown encoding accepted")
	}
}

// Texts over 4 KB are not cut where a piece could run across: the counts
// are tiktoken's (npm tiktoken 1.0.22). Cutting at 4,096 bytes gave 2,931,
// 2,801 and 1,668.
func TestNoCutInsideAPiece(t *testing.T) {
	e := MustGet("o200k_base")
	for _, tc := range []struct {
		name string
		in   string
		want int
	}{
		{"code", strings.Repeat("a = 1;\n", 584) + strings.Repeat("}\n// comment", 5), 2930},
		{"CJK", strings.Repeat("中文字符", 1400), 2800},
		{"digits", strings.Repeat("1", 5000), 1667},
	} {
		if got := e.Count(tc.in); got != tc.want {
			t.Errorf("%s: Count %d, want %d", tc.name, got, tc.want)
		}
		if got := len(e.Encode(tc.in)); got != tc.want {
			t.Errorf("%s: Encode %d tokens, want %d", tc.name, got, tc.want)
		}
	}
}

// Counting cuts long texts into chunks (each chunk's count is remembered);
// the chunks must add up to the count of the uncut text, whatever the
// text: a fuzzed seed is repeated past several chunks, with line feeds,
// slashes and spaces where cuts are considered.
func FuzzChunkedCountEqualsUncut(f *testing.F) {
	c := MustGet("o200k_base").c.(*tiktokenCodec)
	for _, s := range []string{"a = 1;\n", "x\n/", "\n  y", "日本\n", "1", "'s\n\n", " \n\t/x", "\n\u3000z", "ab\r\n"} {
		f.Add(s, uint16(3000))
	}
	f.Fuzz(func(t *testing.T, seed string, reps uint16) {
		if seed == "" {
			return
		}
		s := strings.Repeat(seed, 1+int(reps)%(40000/len(seed)+1))
		uncut := len(c.fast.encode(s, nil))
		c.counts = textCounts{}
		if got, _ := c.count(context.Background(), s); got != uncut {
			t.Fatalf("%d bytes of %q: chunked count %d, uncut %d", len(s), seed, got, uncut)
		}
	})
}
