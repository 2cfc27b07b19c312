package tokens

import (
	"strings"
	"testing"
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

func TestLongTextIsChunkedButCloseAndFast(t *testing.T) {
	e := MustGet("o200k_base")
	s := strings.Repeat("The quick brown fox jumps over the lazy dog.\n", 2000)
	whole := len(e.c.(*tiktokenCodec).tk.Encode(s, nil, nil))
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
