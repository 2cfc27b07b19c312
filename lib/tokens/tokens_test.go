package tokens

import (
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
