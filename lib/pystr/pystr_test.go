package pystr

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The expected values are what CPython 3.11 prints for the same calls.

func TestLower(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ΟΔΟΣ", "οδος"},   // word-final sigma
		{"ΟΔΟΣ.", "οδος."}, // a full stop after it
		{"Σ", "σ"},         // no cased letter before it
		{"AΣB", "aσb"},     // a cased letter after it
		{"A.Σ", "a.ς"},     // '.' is case-ignorable (MidNumLet)
		{"AΣ'", "aς'"},     // so is the apostrophe
		{"ΣΑ", "σα"},
		{"İstanbul", "i̇stanbul"}, // full case mapping: two code points
		{"ǅ", "ǆ"},
		{"ẞ", "ß"},
		{"Customer-Driven ROI", "customer-driven roi"},
	} {
		if got := Lower(tc.in); got != tc.want {
			t.Errorf("Lower(%q) = %q; want %q (str.lower)", tc.in, got, tc.want)
		}
	}
}

func TestSpace(t *testing.T) {
	// len('a\x1cb\x1fc d'.split()) == 4; '\x1c x \x1f'.strip() == 'x'.
	if got := strings.FieldsFunc("a\x1cb\x1fc d", IsSpace); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("split on IsSpace = %q", got)
	}
	for _, s := range []string{"a\x1cb\x1fc d", "  a\u3000b\u00a0c\u2028d ", "a b c d"} {
		if n := CountFields(s); n != 4 {
			t.Errorf("CountFields(%q) = %d; want 4", s, n)
		}
	}
	if CountFields("") != 0 || CountFields(" \x1e ") != 0 {
		t.Error("blank strings have no fields")
	}
	if got := Strip("\x1c x \x1f"); got != "x" {
		t.Errorf("Strip = %q", got)
	}
	if IsSpace('\u200b') || IsSpace('_') {
		t.Error("zero-width space and _ are not whitespace in Python")
	}
}

func TestAtoi(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"12", 12, true},
		{"１２", 12, true}, // int('１２') == 12 (fullwidth)
		{"٣٤", 34, true}, // Arabic-Indic
		{"0٣", 3, true},  // scripts may mix
		{"𝟗", 9, true},   // mathematical digits: one 50-character run of five zeros
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false}, // Python's int takes it; it fits no entry
		{"", 0, false},
		{"1a", 0, false},
		{"²", 0, false}, // category No, not Nd: \d does not match it
	} {
		n, ok := Atoi(tc.in)
		if n != tc.want || ok != tc.ok {
			t.Errorf("Atoi(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.want, tc.ok)
		}
	}
}

// DecimalValue relies on every range of the Nd table being whole runs of
// ten digits starting at a zero.
func TestDecimalRuns(t *testing.T) {
	check := func(lo, hi, stride uint32) {
		if stride != 1 && lo != hi || (hi-lo+1)%10 != 0 {
			t.Errorf("Nd range %#x-%#x stride %d is not whole runs of ten", lo, hi, stride)
		}
	}
	for _, r := range unicode.Nd.R16 {
		check(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
	}
	for _, r := range unicode.Nd.R32 {
		check(r.Lo, r.Hi, r.Stride)
	}
}

func FuzzLastIndex(f *testing.F) {
	for _, c := range [][2]string{{"", ""}, {"abc", ""}, {"aaaa", "aa"}, {"a\n\nb\n\nc", "\n\n"}, {"héllo", "l"}, {"x", "xy"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, s, sub string) {
		if got, want := LastIndex(s, sub), strings.LastIndex(s, sub); got != want {
			t.Fatalf("LastIndex(%q, %q) = %d, want %d", s, sub, got, want)
		}
	})
}
