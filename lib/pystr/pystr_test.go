package pystr

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/ifkit/ifkit/lib/ucd"
)

// The expected values are what CPython prints for the same calls (3.10 and
// 3.11 agree on these characters).

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

// DecimalValue relies on every run of Nd characters being whole runs of
// ten digits starting at a zero.
func TestDecimalRuns(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if c, first := Unicode.Run(r); c == ucd.Nd {
			n++
			if next, _ := Unicode.Run(r + 1); Unicode.Category(r+1) != ucd.Nd && (r-first+1)%10 != 0 {
				t.Errorf("Nd run U+%04X-U+%04X is not whole runs of ten (%v)", first, r, next)
			}
		}
	}
	if n < 600 {
		t.Errorf("%d Nd characters: the table is not Unicode 13's", n)
	}
}

// The classes are Python 3.10's, Unicode 13.0: characters added since are
// unassigned. CPython 3.11 (Unicode 14.0) and Go's tables (15.0) give the
// other answer for each row from the third on ('\u0870'.isidentifier() is
// True in 3.11), and lower 'Ꟁ' to 'ꟁ'.
func TestUnicodeVersion(t *testing.T) {
	if Unicode.Name != "13.0.0" {
		t.Fatalf("pystr follows Unicode %s; Python 3.10 has 13.0.0", Unicode.Name)
	}
	for _, tc := range []struct {
		r                        rune
		decimal, word, printable bool
		why                      string
	}{
		{0x1FBF0, true, true, true, "SEGMENTED DIGIT ZERO, 13.0"},
		{0x4E00, false, true, true, "a CJK ideograph"},
		{0x0870, false, false, false, "ARABIC LETTER ALEF WITH ATTACHED FATHA, 14.0"},
		{0x11F50, false, false, false, "KAWI DIGIT ZERO, 15.0"},
		{0x11F04, false, false, false, "KAWI LETTER A, 15.0"},
		{0x1E4F0, false, false, false, "NAG MUNDARI DIGIT ZERO, 15.0"},
	} {
		if IsDecimal(tc.r) != tc.decimal || IsWord(tc.r) != tc.word || IsPrintable(tc.r) != tc.printable || IsIdentifierChar(tc.r) != tc.word {
			t.Errorf("U+%04X (%s): isdecimal %v \\w %v isprintable %v isidentifier %v, want %v %v %v %v",
				tc.r, tc.why, IsDecimal(tc.r), IsWord(tc.r), IsPrintable(tc.r), IsIdentifierChar(tc.r), tc.decimal, tc.word, tc.printable, tc.word)
		}
	}
	if _, ok := Atoi("\U00011F51"); ok {
		t.Error("int() of a Kawi digit: Python 3.10 refuses it")
	}
	// 'Ꟁ'.lower() and 'Ⱟ'.lower() (14.0) are unchanged in Python 3.10.
	for _, s := range []string{"\uA7C0", "\u2C2F"} {
		if got := Lower(s); got != s {
			t.Errorf("Lower(%+q) = %+q: a 14.0 letter has no mapping in 13.0", s, got)
		}
	}
}

func FuzzLastIndex(f *testing.F) {
	for _, c := range [][2]string{{"", ""}, {"abc", ""}, {"aaaa", "aa"}, {"a\n\nb\n\nc", "\n\n"}, {"héllo", "l"}, {"x", "xy"}, {"a\n x\n x", "\n x"}, {"  \n", " \n"}, {"\n\n\n", "\n\n"}, {"\n", "\n"}, {"x\n=== A (\n== A (\n=== A (y", "\n=== A ("}, {"#A\n### A", "\n### A"}, {"\n=== A (x== A (", "\n=== A ("}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, s, sub string) {
		if got, want := LastIndex(s, sub), strings.LastIndex(s, sub); got != want {
			t.Fatalf("LastIndex(%q, %q) = %d, want %d", s, sub, got, want)
		}
	})
}
