package tokens

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/ucd"
	"golang.org/x/text/unicode/norm"
)

// unicodeNormalize is a Unicode normalization form as the tokenizers
// library computes it (unicode-normalization-alignments, Unicode 9.0
// data), with Go's norm package (Unicode 15.0) doing the work:
//
//   - A character unassigned in 9.0 has no decomposition and combining
//     class 0 there, and composes with nothing: it is copied, and the text
//     on either side normalized apart (which is exact, since such a
//     character blocks every reordering and composition across it).
//     Characters of 9.0 have the same data in 15.0 (Unicode's stability
//     policy).
//   - Go's norm follows UAX #15's stream-safe format and puts U+034F after
//     30 non-starters in a row; the reference does not. A run whose output
//     gains a U+034F is normalized by composeSlow instead.
func unicodeNormalize(f norm.Form, s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	start := 0
	flush := func(end int) {
		if start < end {
			b.WriteString(normalizeRun(f, s[start:end]))
		}
	}
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if normUnicode.Category(r) == ucd.Cn {
			flush(i)
			b.WriteString(s[i : i+size])
			start = i + size
		}
		i += size
	}
	flush(len(s))
	return b.String()
}

// normUnicode is the Unicode version of the tokenizers library's
// normalization data.
var normUnicode = ucd.Unicode9

const cgj = "\u034f"

func normalizeRun(f norm.Form, s string) string {
	out := f.String(s)
	if strings.Count(out, cgj) > strings.Count(s, cgj) {
		return composeSlow(f, s)
	}
	return out
}

// composeSlow is the normalization form of s by the textbook algorithm:
// decompose each character, sort each run of non-starters by combining
// class (stably), and for the composed forms compose each starter with the
// characters that follow it unblocked. It has no limit on the length of a
// run of non-starters, so it never inserts U+034F.
func composeSlow(f norm.Form, s string) string {
	decomp := norm.NFD
	if f == norm.NFKC || f == norm.NFKD {
		decomp = norm.NFKD
	}
	var rs []rune
	for _, r := range s {
		rs = append(rs, []rune(decomp.String(string(r)))...)
	}
	ccc := func(r rune) uint8 { return norm.NFD.PropertiesString(string(r)).CCC() }
	for i := 0; i < len(rs); {
		if ccc(rs[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(rs) && ccc(rs[j]) != 0 {
			j++
		}
		slices.SortStableFunc(rs[i:j], func(a, b rune) int { return int(ccc(a)) - int(ccc(b)) })
		i = j
	}
	if f == norm.NFD || f == norm.NFKD {
		return string(rs)
	}
	out := rs[:0:0]
	starter := -1 // index in out of the last starter
	for _, r := range rs {
		c := ccc(r)
		if starter >= 0 {
			last := ccc(out[len(out)-1])
			blocked := len(out)-1 != starter && (last == 0 || last >= c)
			if !blocked {
				if p, ok := composePair(out[starter], r); ok {
					out[starter] = p
					continue
				}
			}
		}
		if c == 0 {
			starter = len(out)
		}
		out = append(out, r)
	}
	return string(out)
}

// composePair is the primary composite of a and b, if there is one.
func composePair(a, b rune) (rune, bool) {
	c := []rune(norm.NFC.String(string([]rune{a, b})))
	if len(c) == 1 {
		return c[0], true
	}
	return 0, false
}

// rustUnicode is the Unicode version of Rust's char methods in the
// tokenizers build the agreement suite checks (tests/tokenizers).
var rustUnicode = ucd.Unicode17

// stripAccents removes the combining marks (General_Category M, of the
// library's Unicode 9.0 data), as the StripAccents normalizer does.
func stripAccents(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x300 && normUnicode.In(r, ucd.M) {
			return -1
		}
		return r
	}, s)
}
