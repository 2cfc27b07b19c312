package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// The scanner walks one JSON text without building a tree: it records where each
// top-level member's key and value sit, so values pass through byte for byte
// (big integers, key order and number spelling included) and only the fields a
// stage reads are ever decoded.

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.off+1, e.msg)
}

// maxDepth bounds nesting so a hostile line cannot exhaust the stack.
const maxDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value starting at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, &syntaxError{i, "nesting too deep"}
	}
	if i >= len(b) {
		return i, &syntaxError{i, "unexpected end of input"}
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, &syntaxError{i, "expected object key"}
			}
			var err error
			if i, err = skipString(b, i); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, &syntaxError{i, "expected ':' after object key"}
			}
			if i, err = skipValue(b, skipSpace(b, i+1), depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return i + 1, nil
			}
			return i, &syntaxError{i, "expected ',' or '}' in object"}
		}
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skipValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return i + 1, nil
			}
			return i, &syntaxError{i, "expected ',' or ']' in array"}
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	default:
		return i, &syntaxError{i, fmt.Sprintf("unexpected character %q", c)}
	}
}

// skip is skipValue, or skipChecked for bytes already checked.
func skip(b []byte, i int, checked bool) (int, error) {
	if checked {
		return skipChecked(b, i)
	}
	return skipValue(b, i, 1)
}

// skipChecked returns the offset just past the value starting at b[i] of
// valid JSON, without checking it: strings are jumps from quote to quote,
// the rest is counted brackets. On other bytes it ends somewhere in b or
// with an error.
func skipChecked(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return i, &syntaxError{i, "unterminated string"}
			}
			i = end
		case '{', '[':
			depth++
			i++
			continue
		case '}', ']':
			if depth == 0 {
				return i, &syntaxError{i, "unexpected bracket"}
			}
			depth--
			i++
		default:
			i++
			if depth == 0 { // a number or a literal: up to what follows it
				for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
					i++
				}
			}
		}
		if depth == 0 {
			return i, nil
		}
	}
	return i, &syntaxError{i, "unexpected end of input"}
}

// stringEnd is the offset just past the string of valid JSON that starts
// at b[i], or -1 if it does not end: the first quote that is not escaped
// (after an even number of backslashes), found by IndexByte.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for q-n-1 > i && b[q-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), nil
	}
	return i, &syntaxError{i, "invalid literal"}
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return start, &syntaxError{start, "invalid number"}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return start, &syntaxError{start, "invalid number"}
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return start, &syntaxError{start, "invalid number"}
		}
	}
	return i, nil
}

var errControl = errors.New("control character in string")

// skipString checks escapes and control characters; invalid UTF-8 is let through
// unchanged, as encoding/json does on the way in, so pass-through never rewrites it.
func skipString(b []byte, i int) (int, error) {
	start := i
	i++
	for {
		i = plainRun(b, i)
		if i >= len(b) {
			return start, &syntaxError{start, "unterminated string"}
		}
		switch b[i] {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 < len(b) && unescaped[b[i+1]] != 0 {
				i += 2
				continue
			}
			n, err := escapeLen(b, i)
			if err != nil {
				return i, err
			}
			i += n
		default:
			return i, &syntaxError{i, errControl.Error()}
		}
	}
}

// plainRun returns the offset of the first quote, backslash or control
// character in b[i:] (len(b) if none). It reads eight bytes at a time and
// jumps straight to the byte that stopped it: a 455 KB prompt is one
// string, and code or JSON in it has an escape every dozen bytes.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			// The lowest flagged byte is a real one: a false flag needs a
			// borrow from a real one below it.
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	return i
}

// specialBytes flags (top bit) each byte of x that is a quote, a backslash
// or a control character, and maybe bytes above the first one.
func specialBytes(x uint64) uint64 {
	return hasZeroByte(x^(swarOnes*'"')) | hasZeroByte(x^(swarOnes*'\\')) | (x-swarOnes*0x20)&^x&swarHigh
}

// escapeLen is the length of the escape at b[i] (a backslash): 2, or 6 for
// \uXXXX.
func escapeLen(b []byte, i int) (int, error) {
	if i+1 >= len(b) {
		return 0, &syntaxError{i, "unterminated string"}
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		if i+6 > len(b) {
			return 0, &syntaxError{i, "invalid \\u escape"}
		}
		for _, h := range b[i+2 : i+6] {
			if !isHex(h) {
				return 0, &syntaxError{i, "invalid \\u escape"}
			}
		}
		return 6, nil
	}
	return 0, &syntaxError{i, "invalid escape"}
}

const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// hasZeroByte is non-zero when a byte of x is 0.
func hasZeroByte(x uint64) uint64 { return (x - swarOnes) &^ x & swarHigh }

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
