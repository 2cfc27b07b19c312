package lifbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Python semantics the official scorer depends on: str.strip's whitespace,
// len() in code points, json.loads, the unicode_escape codec, edit distance
// over code points, and eval() of list literals (replaced by a parser that
// accepts literals only).

func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

func pyLen(s string) int { return utf8.RuneCountInString(s) }

// pyLoads is json.loads: one JSON value and nothing after it; numbers keep
// their literal so str() can print them as Python would.
func pyLoads(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
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
// same value (so non-ASCII UTF-8 turns into Latin-1 mojibake, as in Python).
func unicodeEscape(s string) (string, error) {
	b := []byte(s)
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			sb.WriteRune(rune(c))
			continue
		}
		if i+1 >= len(b) {
			return "", errors.New("\\ at end of string")
		}
		i++
		switch e := b[i]; e {
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
			for ; j < len(b) && j < i+3 && b[j] >= '0' && b[j] <= '7'; j++ {
				v = v*8 + int(b[j]-'0')
			}
			sb.WriteRune(rune(v))
			i = j - 1
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n > len(b) {
				return "", fmt.Errorf("truncated \\%c escape", e)
			}
			v, err := strconv.ParseUint(string(b[i+1:i+1+n]), 16, 32)
			if err != nil || v > 0x10ffff {
				return "", fmt.Errorf("bad \\%c escape", e)
			}
			sb.WriteRune(rune(v))
			i += n
		case 'N':
			// \N{NAME} needs the Unicode name table; treated as an error.
			return "", errors.New("\\N{...} escapes are not supported")
		default:
			sb.WriteByte('\\')
			sb.WriteRune(rune(e))
		}
	}
	return sb.String(), nil
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

// pyList and pyTuple are evaluated Python sequences.
type (
	pyList  []any
	pyTuple []any
)

// pyNum is a numeric literal, kept as written after normalisation.
type pyNum string

// pyEval evaluates a Python literal (strings, numbers, None, True, False,
// lists, tuples, dicts, sets); anything else is an error, where the official
// scorer's eval() would run it.
func pyEval(s string) (any, error) {
	p := &litParser{s: s}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q", p.s[p.i:min(len(p.s), p.i+10)])
	}
	return v, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *litParser) value() (any, error) {
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '[':
		xs, err := p.seq(']')
		return pyList(xs), err
	case c == '(':
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
			return pyTuple{}, nil
		}
		first, err := p.value()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
			return first, nil // parenthesised expression
		}
		rest, err := p.seqFrom(')', []any{first})
		return pyTuple(rest), err
	case c == '{':
		return p.dict()
	case c == '\'' || c == '"':
		return p.strings()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, kw := range []struct {
			w string
			v any
		}{{"None", nil}, {"True", true}, {"False", false}} {
			if strings.HasPrefix(p.s[p.i:], kw.w) && !identChar(p.s, p.i+len(kw.w)) {
				p.i += len(kw.w)
				return kw.v, nil
			}
		}
	}
	return nil, fmt.Errorf("not a literal at %q", p.s[p.i:min(len(p.s), p.i+10)])
}

func identChar(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// seq reads "[a, b, ...]" (trailing comma allowed).
func (p *litParser) seq(close byte) ([]any, error) {
	p.i++
	return p.seqFrom(close, []any{})
}

// seqFrom continues a sequence at a comma or the closing bracket.
func (p *litParser) seqFrom(close byte, xs []any) ([]any, error) {
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, errors.New("unclosed sequence")
		}
		if p.s[p.i] == close {
			p.i++
			return xs, nil
		}
		if len(xs) > 0 {
			if p.s[p.i] != ',' {
				return nil, fmt.Errorf("want , or %c", close)
			}
			p.i++
			p.space()
			if p.i < len(p.s) && p.s[p.i] == close {
				p.i++
				return xs, nil
			}
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		xs = append(xs, v)
	}
}

func (p *litParser) dict() (any, error) {
	p.i++
	m := map[string]any{}
	n := 0
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, errors.New("unclosed dict")
		}
		if p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		if n > 0 {
			if p.s[p.i] != ',' {
				return nil, errors.New("want , or }")
			}
			p.i++
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			// A set literal: {a, b}.
			xs, err := p.seqFrom('}', []any{k})
			return pyList(xs), err
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m[pyStr(k)] = v
		n++
	}
}

// strings reads one or more adjacent string literals (Python joins them).
func (p *litParser) strings() (any, error) {
	var sb strings.Builder
	for {
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		sb.WriteString(s)
		j := p.i
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
			p.i = j
			return sb.String(), nil
		}
	}
}

func (p *litParser) str() (string, error) {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	end := string(q)
	if triple {
		end = strings.Repeat(string(q), 3)
	}
	p.i += len(end)
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' {
			p.i += 2
			continue
		}
		if !triple && c == '\n' {
			return "", errors.New("newline in string")
		}
		if strings.HasPrefix(p.s[p.i:], end) {
			body := p.s[start:p.i]
			p.i += len(end)
			return unescapeLiteral(body)
		}
		p.i++
	}
	return "", errors.New("unterminated string")
}

// unescapeLiteral decodes a str literal body; unlike unicode_escape it keeps
// non-ASCII text as it is.
func unescapeLiteral(body string) (string, error) {
	if !strings.Contains(body, `\`) {
		return body, nil
	}
	var buf bytes.Buffer
	for len(body) > 0 {
		i := strings.IndexByte(body, '\\')
		if i < 0 {
			buf.WriteString(body)
			break
		}
		buf.WriteString(body[:i])
		j := i + 2
		if j > len(body) {
			return "", errors.New("\\ at end")
		}
		switch body[i+1] {
		case 'x':
			j = i + 4
		case 'u':
			j = i + 6
		case 'U':
			j = i + 10
		case '0', '1', '2', '3', '4', '5', '6', '7':
			for j < len(body) && j < i+4 && body[j] >= '0' && body[j] <= '7' {
				j++
			}
		}
		if j > len(body) {
			return "", errors.New("truncated escape")
		}
		d, err := unicodeEscape(body[i:j])
		if err != nil {
			return "", err
		}
		buf.WriteString(d)
		body = body[j:]
	}
	return buf.String(), nil
}

func (p *litParser) number() (any, error) {
	j := p.i
	if p.s[j] == '-' || p.s[j] == '+' {
		j++
	}
	isFloat := false
	for j < len(p.s) {
		c := p.s[j]
		switch {
		case c >= '0' && c <= '9' || c == '_':
		case c == '.' || c == 'e' || c == 'E':
			isFloat = true
		case (c == '-' || c == '+') && (p.s[j-1] == 'e' || p.s[j-1] == 'E'):
		default:
			goto done
		}
		j++
	}
done:
	lit := strings.ReplaceAll(p.s[p.i:j], "_", "")
	p.i = j
	if isFloat {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return nil, err
		}
		return pyNum(pyFloat(f)), nil
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(lit, "+"), 10, 64)
	if err != nil {
		return nil, err
	}
	return pyNum(strconv.FormatInt(n, 10)), nil
}

// pyStrValue is str() of a parsed JSON or literal value.
func pyStrValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case pyNum:
		return string(x)
	case pyList:
		return pyReprValue([]any(x))
	case pyTuple:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyReprValue(e)
		}
		if len(x) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return pyReprValue(v)
}

func pyReprValue(v any) string {
	switch x := v.(type) {
	case pyNum:
		return string(x)
	case pyList:
		return pyReprValue([]any(x))
	case pyTuple:
		return pyStrValue(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyReprValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		// Key order is lost; Python would print insertion order.
		return fmt.Sprint(x)
	}
	return pyRepr(v)
}

// jsonToPy turns a json.Number into the literal Python would print.
func jsonToPy(v any) any {
	switch x := v.(type) {
	case json.Number:
		if isIntLiteral(string(x)) {
			return pyNum(string(x))
		}
		f, _ := x.Float64()
		return pyNum(pyFloat(f))
	case []any:
		out := make(pyList, len(x))
		for i, e := range x {
			out[i] = jsonToPy(e)
		}
		return out
	}
	return v
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
	i := strings.LastIndex(s, sub)
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
