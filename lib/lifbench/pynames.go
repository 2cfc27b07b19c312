package lifbench

// pyaliases.go is made by pyaliases_gen.py from the sources it names.
//go:generate sh -c "python3 pyaliases_gen.py > pyaliases.go && gofmt -w pyaliases.go"

import (
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/ucd"
	"golang.org/x/text/unicode/runenames"
)

// lookupName is the character name lookup of Python's \N{NAME} escapes
// (unicodedata's _getcode without named sequences): names and aliases
// compare case-insensitively (ASCII upper-casing), the algorithmic names
// "HANGUL SYLLABLE <jamo>" and "CJK UNIFIED IDEOGRAPH-<4 or 5 hex digits>"
// in upper case only. Names are x/text's (Unicode 15.0) and aliases
// pyaliases.go's, kept only for characters Python 3.10's Unicode 13.0 has
// (pystr.Unicode): \N{KAWI LETTER A} is an error there, as officially.
func lookupName(name string) (rune, bool) {
	const hangul, cjk = "HANGUL SYLLABLE ", "CJK UNIFIED IDEOGRAPH-"
	switch {
	case strings.HasPrefix(name, hangul):
		return hangulSyllable(name[len(hangul):])
	case strings.HasPrefix(name, cjk):
		hex := name[len(cjk):]
		if len(hex) != 4 && len(hex) != 5 || strings.ToUpper(hex) != hex || !isHex(hex) {
			return 0, false
		}
		var r rune
		for i := 0; i < len(hex); i++ {
			r = r*16 + rune(strings.IndexByte("0123456789ABCDEF", hex[i]))
		}
		return r, strings.HasPrefix(runenames.Name(r), "<CJK Ideograph") && assigned(r)
	}
	up := asciiUpper(name)
	if r, ok := nameIndex()[up]; ok {
		return r, true
	}
	r, ok := nameAliases[up]
	return r, ok && assigned(r)
}

func assigned(r rune) bool { return pystr.Unicode.Category(r) != ucd.Cn }

// nameIndex maps every character name to its character; built on the
// first \N escape (a pass over the code space, about 0.1 s).
var nameIndex = sync.OnceValue(func() map[string]rune {
	m := make(map[string]rune, 40000)
	for r := rune(0); r <= 0x10ffff; r++ {
		if n := runenames.Name(r); n != "" && n[0] != '<' && assigned(r) {
			m[n] = r
		}
	}
	return m
})

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// The jamo of Hangul syllable names (Unicode's Jamo short names).
var (
	jamoL = []string{"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H"}
	jamoV = []string{"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"}
	jamoT = []string{"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C", "K", "T", "P", "H"}
)

// hangulSyllable reads the jamo after "HANGUL SYLLABLE " as CPython's
// find_syllable does: the longest matching initial, then vowel, then final,
// and nothing may be left over.
func hangulSyllable(s string) (rune, bool) {
	longest := func(s string, set []string) (int, int) {
		best, n := -1, -1
		for i, j := range set {
			if len(j) > n && strings.HasPrefix(s, j) {
				best, n = i, len(j)
			}
		}
		return best, max(n, 0)
	}
	l, n := longest(s, jamoL)
	s = s[n:]
	v, n := longest(s, jamoV)
	s = s[n:]
	t, n := longest(s, jamoT)
	if l < 0 || v < 0 || t < 0 || n != len(s) {
		return 0, false
	}
	return rune(0xac00 + (l*len(jamoV)+v)*len(jamoT) + t), true
}
