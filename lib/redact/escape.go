package redact

import (
	"bytes"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// view is a text with the escapes of JSON and Go strings decoded (\/ \"
// \\ \b \f \n \r \t \uXXXX, a surrogate pair as one character, \xXX), and
// where each decoded byte came from: a server that echoes a key inside a
// JSON string may escape any of its characters, and a log line quotes its
// values. Text that is no escape is kept as it is.
type view struct {
	d   []byte
	esc []mark // in order
}

// mark is one escape: its place in d and in the text, and its lengths.
type mark struct{ d, b, dn, bn int }

func unescape(b []byte) *view {
	v := &view{d: make([]byte, 0, len(b))}
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			v.d = append(v.d, b[i:]...)
			break
		}
		v.d = append(v.d, b[i:i+j]...)
		i += j
		dec, n := decodeEscape(b[i:])
		if n == 0 { // not an escape: the backslash is text
			v.d = append(v.d, '\\')
			i++
			continue
		}
		v.esc = append(v.esc, mark{d: len(v.d), b: i, dn: len(dec), bn: n})
		v.d = append(v.d, dec...)
		i += n
	}
	return v
}

// escapeByte is the first byte the escape at the start of b stands for,
// and the escape's length (0: none), without decoding it whole.
func escapeByte(b []byte) (byte, int) {
	if len(b) < 2 {
		return 0, 0
	}
	switch c := b[1]; c {
	case '/', '"', '\\', '\'':
		return c, 2
	case 'b', 'f', 'n', 'r', 't':
		return 0, 2 // control characters, in no key
	}
	d, n := decodeEscape(b)
	if n == 0 {
		return 0, 0
	}
	return d[0], n
}

// decodeEscape decodes the escape at the start of b (b[0] is '\'): the
// bytes it stands for and its length, 0 when it is none.
func decodeEscape(b []byte) ([]byte, int) {
	if len(b) < 2 {
		return nil, 0
	}
	switch c := b[1]; c {
	case '/', '"', '\\', '\'':
		return []byte{c}, 2
	case 'b':
		return []byte{'\b'}, 2
	case 'f':
		return []byte{'\f'}, 2
	case 'n':
		return []byte{'\n'}, 2
	case 'r':
		return []byte{'\r'}, 2
	case 't':
		return []byte{'\t'}, 2
	case 'x':
		if len(b) >= 4 {
			if x, err := strconv.ParseUint(string(b[2:4]), 16, 8); err == nil {
				return []byte{byte(x)}, 4
			}
		}
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return nil, 0
		}
		n := 6
		if utf16.IsSurrogate(r) {
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
				if lo, ok := hex4(b[8:]); ok {
					if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
						r, n = p, 12
					}
				}
			}
		}
		return utf8.AppendRune(nil, r), n
	}
	return nil, 0
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	x, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(x), err == nil
}

// start is where the decoded byte at i came from.
func (v *view) start(i int) int {
	k := sort.Search(len(v.esc), func(k int) bool { return v.esc[k].d > i }) - 1
	if k < 0 {
		return i
	}
	m := v.esc[k]
	if i < m.d+m.dn {
		return m.b // inside an escape: all of it
	}
	return m.b + m.bn + i - (m.d + m.dn)
}

// end is where the decoded text before i ends in the text.
func (v *view) end(i int) int {
	if i == 0 {
		return 0
	}
	k := sort.Search(len(v.esc), func(k int) bool { return v.esc[k].d > i-1 }) - 1
	if k < 0 {
		return i
	}
	m := v.esc[k]
	if i-1 < m.d+m.dn {
		return m.b + m.bn // ends inside an escape: all of it
	}
	return m.b + m.bn + i - (m.d + m.dn)
}
