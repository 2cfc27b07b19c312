package ucd

import (
	"testing"
	"unicode"
)

// Characters added after a version are unassigned in its tables; those
// added up to it have their category. Each row is a character from the
// version's own additions.
func TestVersionsArePinned(t *testing.T) {
	for _, tc := range []struct {
		v    *Version
		r    rune
		want Category
		why  string
	}{
		{Unicode9, 0x1E94A, Mn, "ADLAM NUKTA, 9.0"},
		{Unicode9, 0x1DF9, Cn, "COMBINING WIDE INVERTED BRIDGE BELOW, 10.0"},
		{Unicode13, 0x1FAD0, So, "BLUEBERRY, 13.0"},
		{Unicode13, 0x0870, Cn, "ARABIC LETTER ALEF WITH ATTACHED FATHA, 14.0"},
		{Unicode13, 0x11F04, Cn, "KAWI LETTER A, 15.0"},
		{Unicode16, 0x2EBF0, Lo, "CJK Extension I, 15.1"},
		{Unicode16, 0x10D40, Nd, "GARAY DIGIT ZERO, 16.0"},
		{Unicode16, 0x1C89, Lu, "CYRILLIC CAPITAL LETTER TJE, 16.0"},
		{Unicode16, 0x0897, Mn, "ARABIC PEPET, 16.0"},
		{Unicode16, 0xA7CE, Cn, "LATIN CAPITAL LETTER PHARYNGEAL VOICED FRICATIVE, 17.0"},
		{Unicode17, 0xA7CE, Lu, "the same, 17.0"},
		{Unicode17, 0x11DE0, Nd, "TOLONG SIKI DIGIT ZERO, 17.0"},
		{Unicode17, 0x0295, Lo, "LATIN LETTER PHARYNGEAL VOICED FRICATIVE: Ll until 16.0"},
		{Unicode16, 0x0295, Ll, "the same, 16.0"},
	} {
		if got := tc.v.Category(tc.r); got != tc.want {
			t.Errorf("Unicode %s: U+%04X (%s) is category %d, want %d", tc.v.Name, tc.r, tc.why, got, tc.want)
		}
	}
	if c := Unicode16.Category(0x110000); c != Cn {
		t.Errorf("past the code space: %d", c)
	}
}

var goCategories = func() map[string]Category {
	m := map[string]Category{}
	short := []string{"Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",
		"Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"}
	for i, n := range short {
		m[n] = Category(i)
	}
	return m
}()

// Go's tables (Unicode 15.0) were made from the same data by other code:
// every character both assign has the same category in each version but
// for the few whose category Unicode changed between them.
func TestAgreesWithGo(t *testing.T) {
	if unicode.Version != "15.0.0" {
		t.Skipf("Go's unicode package is %s; the exceptions below are for 15.0.0", unicode.Version)
	}
	changed := map[*Version]func(r rune) bool{
		// Georgian Mkhedruli became Ll in 11.0; the others changed in 12.0
		// to 14.0.
		Unicode9: func(r rune) bool {
			return r >= 0x10D0 && r <= 0x10FF || r == 0x166D || r == 0x1734 || r == 0x1CF2 || r == 0x1CF3 || r == 0xA9BD || r == 0x111C9
		},
		Unicode13: func(r rune) bool { return r == 0x1734 },  // HANUNOO SIGN PAMUDPOD: Mc in 14.0
		Unicode16: func(r rune) bool { return r == 0x1171E }, // AHOM CONSONANT SIGN MEDIAL RA: Mc in 16.0
		Unicode17: func(r rune) bool { return r == 0x1171E || r == 0x0295 },
	}
	goCat := make([]Category, unicode.MaxRune+1)
	for name, tab := range unicode.Categories {
		c, ok := goCategories[name]
		if !ok || len(name) != 2 {
			continue
		}
		for _, r16 := range tab.R16 {
			for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
				goCat[r] = c
			}
		}
		for _, r32 := range tab.R32 {
			for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
				goCat[r] = c
			}
		}
	}
	for v, exempt := range changed {
		for r := rune(0); r <= unicode.MaxRune; r++ {
			g, u := goCat[r], v.Category(r)
			if g != Cn && u != Cn && g != u && !exempt(r) {
				t.Errorf("Unicode %s: U+%04X is %d, Go's %d", v.Name, r, u, g)
			}
		}
	}
}

func TestCaseAndProperties(t *testing.T) {
	for _, tc := range []struct {
		v        *Version
		r, lower rune
	}{
		{Unicode13, 'A', 'a'}, {Unicode13, 'Σ', 'σ'}, {Unicode13, 'a', 'a'}, {Unicode13, 0x130, 'i'},
		{Unicode13, 0xA7CE, 0xA7CE}, {Unicode17, 0xA7CE, 0xA7CF}, {Unicode17, 0x1C89, 0x1C8A},
	} {
		if got := tc.v.ToLower(tc.r); got != tc.lower {
			t.Errorf("Unicode %s: ToLower(U+%04X) = U+%04X, want U+%04X", tc.v.Name, tc.r, got, tc.lower)
		}
	}
	if got := Unicode17.Lower('İ'); got != "i\u0307" {
		t.Errorf("Lower(İ) = %+q", got)
	}
	if got := Unicode17.Lower('Σ'); got != "σ" {
		t.Errorf("Lower(Σ) = %+q: the conditional Final_Sigma is the caller's", got)
	}
	for r, want := range map[rune]rune{'ſ': 's', 'S': 's', 0x212A: 'k', 0x1E9E: 0xDF, 'ς': 'σ', 'x': 'x'} {
		if got := Unicode16.SimpleFold(r); got != want {
			t.Errorf("SimpleFold(U+%04X) = U+%04X, want U+%04X", r, got, want)
		}
	}
	cased, ign := Unicode13.Prop("Cased"), Unicode13.Prop("Case_Ignorable")
	for r, want := range map[rune][2]bool{'A': {true, false}, '\'': {false, true}, '.': {false, true}, 0x0301: {false, true}, '1': {false, false}, 'ʰ': {true, true}} {
		if got := [2]bool{cased.Contains(r), ign.Contains(r)}; got != want {
			t.Errorf("U+%04X: Cased, Case_Ignorable = %v, want %v", r, got, want)
		}
	}
	for _, r := range []rune{' ', '\t', '\n', 0x85, 0xA0, 0x2028, 0x3000} {
		if !IsWhiteSpace(r) {
			t.Errorf("U+%04X is White_Space", r)
		}
	}
	for _, r := range []rune{'x', 0x200B, 0x180E, 0xFEFF, 0x1C} {
		if IsWhiteSpace(r) {
			t.Errorf("U+%04X is not White_Space", r)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a property the generator did not write must panic")
		}
	}()
	Unicode16.Prop("Cased")
}

func TestNamed(t *testing.T) {
	for name, want := range map[string]Set{"L": L, "Letter": L, "Lu": Of(Lu), "Uppercase_Letter": Of(Lu), "N": N, "P": P, "Cn": Of(Cn)} {
		if got, ok := Named(name); !ok || got != want {
			t.Errorf("Named(%q) = %b, %v", name, got, ok)
		}
	}
	if _, ok := Named("Han"); ok {
		t.Error("a script is not a general category")
	}
	if !Unicode16.In('x', L) || Unicode16.In('1', L) || !Unicode16.In(0x10D40, N) {
		t.Error("In")
	}
}
