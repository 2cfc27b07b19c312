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
	if validUTF8(s) {
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

// validUTF8 is utf8.ValidString, which reads its input a byte at a time
// once it has met a byte from 0x80: this one skips ASCII eight bytes at a
// time wherever it is, and checks the three- and four-byte characters of
// CJK and emoji text inline (emoji text took 8 % of o200k_base's count in
// utf8.ValidString).
func validUTF8(s string) bool {
	n := len(s)
	for i := 0; i < n; {
		if i+8 <= n && load64(s[i:])&0x8080808080808080 == 0 {
			i += 8
			continue
		}
		b := s[i]
		switch {
		case b < utf8.RuneSelf:
			i++
		case b >= 0xC2 && b <= 0xDF:
			if i+1 >= n || s[i+1]&0xC0 != 0x80 {
				return false
			}
			i += 2
		case b >= 0xE0 && b <= 0xEF:
			if i+2 >= n {
				return false
			}
			c1, c2 := s[i+1], s[i+2]
			lo, hi := byte(0x80), byte(0xBF)
			if b == 0xE0 {
				lo = 0xA0 // no overlong forms
			} else if b == 0xED {
				hi = 0x9F // no surrogates
			}
			if c1 < lo || c1 > hi || c2&0xC0 != 0x80 {
				return false
			}
			i += 3
		case b >= 0xF0 && b <= 0xF4:
			if i+3 >= n {
				return false
			}
			c1, c2, c3 := s[i+1], s[i+2], s[i+3]
			lo, hi := byte(0x80), byte(0xBF)
			if b == 0xF0 {
				lo = 0x90 // no overlong forms
			} else if b == 0xF4 {
				hi = 0x8F // nothing above U+10FFFF
			}
			if c1 < lo || c1 > hi || c2&0xC0 != 0x80 || c3&0xC0 != 0x80 {
				return false
			}
			i += 4
		default:
			return false
		}
	}
	return true
}
