package lifbench

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pystr"
)

// Python semantics the official scorer depends on: len() in code points,
// json.loads (pyjson.go), the unicode_escape codec, edit distance over code
// points, str.find and slicing, and eval() (pylit.go: a parser of literals,
// names and + that runs nothing). Whitespace and stripping are lib/pystr's.

func pyLen(s string) int { return utf8.RuneCountInString(s) }

// pyRules are what the interpreter the official numbers were produced on
// does beyond reading literals. The official repository's bytecode is
// CPython 3.10's (evaluation/__pycache__/*.cpython-310.pyc); 3.10.7 and
// later refuse to convert between int and decimal text of more than 4,300
// digits, which makes json.loads and eval() refuse such a number and str()
// of such an int raise. The strict rubric reads literals only, without
// that limit.
type pyRules struct {
	// maxDigits is sys.get_int_max_str_digits(); 0 is no limit.
	maxDigits int
	// names makes eval() see the names the official call sees (the
	// builtins and the evaluation module's globals, pybuiltins.go) and
	// join sequences with +, as Python evaluates "a" + "b".
	names bool
}

var (
	pyOfficial = pyRules{maxDigits: pystr.IntMaxStrDigits, names: true}
	pyLiteral  = pyRules{}
)

// tooManyDigits says whether int() refuses a decimal text of n digits.
func (r pyRules) tooManyDigits(n int) bool { return r.maxDigits > 0 && n > r.maxDigits }

// strRaises says whether str() of v raises ValueError under the limit: it
// holds an int of more than maxDigits decimal digits.
func (r pyRules) strRaises(v any) bool {
	switch x := v.(type) {
	case pyNumber:
		return x.kind == intNum && r.intTooLong(x.i)
	case pyList:
		return slices.ContainsFunc(x, r.strRaises)
	case pyTuple:
		return slices.ContainsFunc(x, r.strRaises)
	case pySet:
		return slices.ContainsFunc(x, r.strRaises)
	case *pyDict:
		return slices.ContainsFunc(x.keys, r.strRaises) || slices.ContainsFunc(x.vals, r.strRaises)
	}
	return false
}

// intTooLong says whether |n| has more than maxDigits decimal digits.
func (r pyRules) intTooLong(n *big.Int) bool {
	// Below 10^maxDigits = 2^(maxDigits·log2 10) by its bit length alone.
	if r.maxDigits == 0 || float64(n.BitLen()) <= float64(r.maxDigits)*math.Log2(10) {
		return false
	}
	return n.CmpAbs(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(r.maxDigits)), nil)) >= 0
}

func isStrList(v any) ([]any, bool, bool) {
	xs, ok := v.([]any)
	if !ok {
		return nil, false, false
	}
	for _, x := range xs {
		if _, ok := x.(string); !ok {
			return xs, true, false
		}
	}
	return xs, true, true
}

// unicodeEscape is s.encode('utf-8').decode('unicode_escape'): backslash
// escapes are decoded and every other byte becomes the code point of the
// same value, so non-ASCII UTF-8 turns into Latin-1 mojibake as in Python.
func unicodeEscape(s string) (string, error) { return decodeEscapes(s, true) }

// unescapeText decodes the same escapes but keeps non-ASCII text as it is:
// the strict rubric's reading, and the body of a str literal.
func unescapeText(s string) (string, error) { return decodeEscapes(s, false) }

// decodeEscapes is the unicode_escape decoder over the UTF-8 bytes of s;
// latin1 says whether a non-ASCII byte stands for itself (the codec) or
// starts a character that is copied whole.
func decodeEscapes(s string, latin1 bool) (string, error) {
	if !strings.Contains(s, `\`) && (!latin1 || isASCII(s)) {
		return s, nil
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf && !latin1 {
			_, size := utf8.DecodeRuneInString(s[i:])
			sb.WriteString(s[i : i+size])
			i += size - 1
			continue
		}
		if c != '\\' {
			sb.WriteRune(rune(c))
			continue
		}
		if i+1 >= len(s) {
			return "", errors.New("\\ at end of string")
		}
		i++
		switch e := s[i]; e {
		case '\n':
		case '\\', '\'', '"':
			sb.WriteByte(e)
		case 'a':
			sb.WriteByte(7)
		case 'b':
			sb.WriteByte(8)
		case 'f':
			sb.WriteByte(12)
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			sb.WriteRune(rune(v))
			i = j - 1
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n > len(s) || !isHex(s[i+1:i+1+n]) {
				return "", fmt.Errorf("truncated \\%c escape", e)
			}
			v, _ := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if v > unicode.MaxRune {
				return "", fmt.Errorf("\\%c escape out of range", e)
			}
			sb.WriteRune(rune(v))
			i += n
		case 'N':
			// \N{NAME}: the name runs to the first "}"; an empty or
			// unknown name is an error, as in Python.
			end := strings.IndexByte(s[i+1:], '}')
			if i+1 >= len(s) || s[i+1] != '{' || end < 2 {
				return "", errors.New("malformed \\N character escape")
			}
			r, ok := lookupName(s[i+2 : i+1+end])
			if !ok {
				return "", errors.New("unknown Unicode character name")
			}
			sb.WriteRune(r)
			i += 1 + end
		default:
			sb.WriteByte('\\')
			i-- // the next character is read as itself (it may be non-ASCII)
		}
	}
	return sb.String(), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isHex reports whether s is hex digits only (strconv would also take a
// sign or underscores in some bases; Python's escapes take neither).
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(s[i] >= '0' && s[i] <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// editDistance is the Levenshtein distance over code points.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// pyFind and pyRFind are str.find and str.rfind in code points.
func pyFind(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

func pyRFind(s, sub string) int {
	i := pystr.LastIndex(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

// pySlice is s[a:b] over code points with Python's negative and
// out-of-range index rules.
func pySlice(s string, a, b int) string {
	r := []rune(s)
	n := len(r)
	norm := func(i int) int {
		if i < 0 {
			i += n
		}
		return max(0, min(n, i))
	}
	a, b = norm(a), norm(b)
	if a >= b {
		return ""
	}
	return string(r[a:b])
}

// unquote decodes a JSON string literal, copying the runs between escapes
// in bulk (prompts are long and escape every newline).
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	b := raw[1 : len(raw)-1]
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return string(b), utf8.Valid(b)
	}
	out := make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		if i+1 >= len(b) {
			return "", false
		}
		n := 2
		switch c := b[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, ok := hex4(b[i+2:])
			if !ok {
				return "", false
			}
			n = 6
			if utf16.IsSurrogate(r) {
				// The bounds come first: a lone surrogate may end the string.
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					if r2, ok := hex4(b[i+8:]); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r, n = d, 12
						}
					}
				}
				if n == 6 {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
		b = b[i+n:]
		i = bytes.IndexByte(b, '\\')
	}
	out = append(out, b...)
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}
