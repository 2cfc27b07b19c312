package tokens

import (
	"strings"
	"unicode/utf8"
)

// validText is s with each maximal ill-formed subsequence of its UTF-8
// replaced by one U+FFFD, as Unicode recommends and as Rust's
// String::from_utf8_lossy, Python's decode(errors="replace") and a
// browser's TextDecoder do: the text a server's tokenizer sees when such
// bytes reach it. (Go's []rune conversion replaces each byte, and
// strings.ToValidUTF8 each run of bad bytes, with one.)
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			b.WriteByte(s[i])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += illFormedLen(s[i:])
	}
	return b.String()
}

// illFormedLen is the length of the maximal subpart at the start of s,
// which holds no valid character there: the lead byte and the continuation
// bytes that could still have completed it (Unicode Table 3-7), at least 1.
func illFormedLen(s string) int {
	b := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF) // the second byte's range
	switch {
	case b >= 0xC2 && b <= 0xDF:
		need = 1
	case b == 0xE0:
		need, lo = 2, 0xA0
	case b >= 0xE1 && b <= 0xEC, b == 0xEE, b == 0xEF:
		need = 2
	case b == 0xED:
		need, hi = 2, 0x9F
	case b == 0xF0:
		need, lo = 3, 0x90
	case b >= 0xF1 && b <= 0xF3:
		need = 3
	case b == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(s); k++ {
		c := s[n]
		if k == 0 && (c < lo || c > hi) || k > 0 && (c < 0x80 || c > 0xBF) {
			break
		}
		n++
	}
	return n
}
