package lifbench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pystr"
)

// Evaluated Python values, for str() and for the find_dup rubric. None is
// nil, bool is bool, str is string; the rest have their own types.
type (
	pyList     []any
	pyTuple    []any
	pySet      []any // insertion order (Python's follows hashes)
	pyBytes    string
	pyEllipsis struct{}
)

// pyDict keeps insertion order, as Python's dict does.
type pyDict struct {
	keys, vals []any
}

// set stores k: v; an equal key keeps its place and first spelling.
func (d *pyDict) set(k, v any) {
	h := hashKey(k)
	for i, x := range d.keys {
		if hashKey(x) == h {
			d.vals[i] = v
			return
		}
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
}

type numKind uint8

const (
	intNum numKind = iota
	floatNum
	complexNum
)

// pyNumber is an int (any size), a float or a complex.
type pyNumber struct {
	kind   numKind
	i      *big.Int
	re, im float64
}

func pyInt(n *big.Int) pyNumber         { return pyNumber{kind: intNum, i: n} }
func pyFloatNum(f float64) pyNumber     { return pyNumber{kind: floatNum, re: f} }
func pyComplex(re, im float64) pyNumber { return pyNumber{kind: complexNum, re: re, im: im} }

// float is float(n); false when an int is too large (OverflowError).
func (n pyNumber) float() (float64, bool) {
	if n.kind != intNum {
		return n.re, true
	}
	f, _ := new(big.Float).SetInt(n.i).Float64()
	return f, !math.IsInf(f, 0)
}

func (n pyNumber) neg() pyNumber {
	switch n.kind {
	case intNum:
		return pyInt(new(big.Int).Neg(n.i))
	case floatNum:
		return pyFloatNum(-n.re)
	}
	return pyComplex(-n.re, -n.im)
}

// add is a + b (sub: a - b) with Python's numeric tower: int with int
// stays exact; otherwise both become floats (an int too large raises
// OverflowError), and complex when either is.
func (a pyNumber) add(b pyNumber, sub bool) (pyNumber, error) {
	if a.kind == intNum && b.kind == intNum {
		if sub {
			return pyInt(new(big.Int).Sub(a.i, b.i)), nil
		}
		return pyInt(new(big.Int).Add(a.i, b.i)), nil
	}
	ar, ok1 := a.float()
	br, ok2 := b.float()
	if !ok1 || !ok2 {
		return pyNumber{}, errors.New("int too large to convert to float")
	}
	re, im := ar+br, a.im+b.im
	if sub {
		re, im = ar-br, a.im-b.im
	}
	if a.kind != complexNum && b.kind != complexNum {
		return pyFloatNum(re), nil
	}
	return pyComplex(re, im), nil
}

// repr is repr() (and str()) of the number.
func (n pyNumber) repr() string {
	switch n.kind {
	case intNum:
		return n.i.String()
	case floatNum:
		return pyFloat(n.re)
	}
	im := floatNoDot(n.im) + "j"
	if n.re == 0 && !math.Signbit(n.re) {
		return im
	}
	if !strings.HasPrefix(im, "-") {
		im = "+" + im
	}
	return "(" + floatNoDot(n.re) + im + ")"
}

// floatNoDot is a complex part as Python prints it: repr without ".0".
func floatNoDot(f float64) string { return strings.TrimSuffix(pyFloat(f), ".0") }

// parseFloat is float() of a Python or JSON float literal (underscores
// removed): out-of-range values are inf or 0, as in Python.
func parseFloat(lit string) (float64, bool) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// pyEval is eval() of a Python literal: strings (u, r, b, f prefixes;
// f-strings without fields), bytes, numbers (with underscores, 0x/0o/0b,
// imaginary; unary + and -, and + or - between numbers, which spells
// complex literals; True and False count as the ints 1 and 0 there), None,
// True, False, ..., lists, tuples (bare at the top level too), dicts and
// sets, with comments and line joins as Python's tokenizer reads them.
// With r.names it also evaluates the names the official call sees
// (pybuiltins.go) and + between two strs, bytes, lists or tuples. Anything
// else is an error where Python's eval would evaluate an expression (other
// arithmetic, other names, calls, subscripts, f-string fields); a decimal
// integer of more than r.maxDigits digits is an error, as it is a
// SyntaxError in Python.
func pyEval(s string, r pyRules) (any, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, errors.New("source code cannot contain null bytes")
	}
	// eval() strips leading spaces and tabs; blank and comment lines may
	// come first, but the expression's own line may not be indented.
	p := &litParser{s: strings.TrimLeft(s, " \t"), rules: r}
	line := 0
	for {
		p.space()
		if !p.newline() {
			break
		}
		line = p.i
	}
	if p.i > line && (p.s[line] == ' ' || p.s[line] == '\t') {
		return nil, errors.New("unexpected indent")
	}
	v, err := p.expr()
	if err != nil {
		return nil, err
	}
	// "1, 2" is a tuple at the top level too.
	p.space()
	if p.peek() == ',' {
		xs := []any{v}
		for p.peek() == ',' {
			p.i++
			p.space()
			if p.i == len(p.s) || p.peek() == '\n' || p.peek() == '\r' {
				break
			}
			if v, err = p.expr(); err != nil {
				return nil, err
			}
			xs = append(xs, v)
			p.space()
		}
		v = pyTuple(xs)
	}
	for {
		p.space()
		if !p.newline() {
			break
		}
	}
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q", p.s[p.i:min(len(p.s), p.i+10)])
	}
	return v, nil
}

type litParser struct {
	s     string
	i     int
	depth int // nested brackets
	rules pyRules
}

// space skips what Python's tokenizer skips between tokens: spaces, tabs,
// form feeds, a comment, a backslash that joins lines and, inside brackets,
// line ends. A vertical tab or a non-ASCII space is an error.
func (p *litParser) space() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\f':
			p.i++
		case (c == '\n' || c == '\r') && p.depth > 0:
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '\r' {
				p.i++
			}
		case c == '\\' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\n' || p.s[p.i+1] == '\r'):
			j := p.i + 2
			if p.s[j-1] == '\r' && j < len(p.s) && p.s[j] == '\n' {
				j++
			}
			if j == len(p.s) {
				return // a line join before the end of the input is an error
			}
			p.i = j
		default:
			return
		}
	}
}

// newline consumes one line end at the top level.
func (p *litParser) newline() bool {
	switch p.peek() {
	case '\n':
		p.i++
	case '\r':
		p.i++
		if p.peek() == '\n' {
			p.i++
		}
	default:
		return false
	}
	return true
}

// number is v as a number: Python's bool is an int.
func number(v any) (pyNumber, bool) {
	switch x := v.(type) {
	case pyNumber:
		return x, true
	case bool:
		if x {
			return pyInt(big.NewInt(1)), true
		}
		return pyInt(big.NewInt(0)), true
	}
	return pyNumber{}, false
}

func (p *litParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// expr is a value, or values joined by + and -.
func (p *litParser) expr() (any, error) {
	v, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		j := p.i
		p.space()
		op := p.peek()
		if op != '+' && op != '-' {
			p.i = j
			return v, nil
		}
		p.i++
		p.space()
		w, err := p.unary()
		if err != nil {
			return nil, err
		}
		if v, err = p.binary(v, w, op == '-'); err != nil {
			return nil, err
		}
	}
}

// binary is a + b (sub: a - b): numbers with Python's numeric tower, and
// with names two sequences of one kind joined; any other pair is Python's
// TypeError.
func (p *litParser) binary(a, b any, sub bool) (any, error) {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x.add(y, sub)
		}
	}
	if p.rules.names && !sub {
		switch x := a.(type) {
		case string:
			if y, ok := b.(string); ok {
				return x + y, nil
			}
		case pyBytes:
			if y, ok := b.(pyBytes); ok {
				return x + y, nil
			}
		case pyList:
			if y, ok := b.(pyList); ok {
				return append(slices.Clip(x), y...), nil
			}
		case pyTuple:
			if y, ok := b.(pyTuple); ok {
				return append(slices.Clip(x), y...), nil
			}
		}
	}
	return nil, errors.New("unsupported operand types")
}

func (p *litParser) unary() (any, error) {
	if c := p.peek(); c == '-' || c == '+' {
		p.i++
		p.space()
		v, err := p.unary()
		if err != nil {
			return nil, err
		}
		n, ok := number(v)
		if !ok {
			return nil, errors.New("unary sign on a non-number")
		}
		if c == '-' {
			n = n.neg()
		}
		return n, nil
	}
	return p.atom()
}

func (p *litParser) atom() (any, error) {
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '[' || c == '(' || c == '{':
		// Python's tokenizer gives up at 200 nested brackets.
		if p.depth++; p.depth > 200 {
			return nil, errors.New("too many nested parentheses")
		}
		defer func() { p.depth-- }()
	}
	switch c := p.s[p.i]; {
	case c == '[':
		p.i++
		xs, _, err := p.items(']')
		return pyList(xs), err
	case c == '(':
		p.i++
		xs, comma, err := p.items(')')
		if err != nil {
			return nil, err
		}
		if len(xs) == 1 && !comma {
			return xs[0], nil // a parenthesised value
		}
		return pyTuple(xs), nil
	case c == '{':
		return p.dict()
	case c == '.' && strings.HasPrefix(p.s[p.i:], "..."):
		p.i += 3
		return pyEllipsis{}, nil
	case c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	if v, ok, err := p.strings(); ok || err != nil {
		return v, err
	}
	for _, kw := range []struct {
		w string
		v any
	}{{"None", nil}, {"True", true}, {"False", false}} {
		if strings.HasPrefix(p.s[p.i:], kw.w) && !identAt(p.s, p.i+len(kw.w)) {
			p.i += len(kw.w)
			return kw.v, nil
		}
	}
	if ident := identifier(p.s[p.i:]); ident != "" && p.rules.names {
		if v, ok := pyName(ident); ok {
			p.i += len(ident)
			return v, nil
		}
		return nil, fmt.Errorf("name %q is not defined", ident)
	}
	return nil, fmt.Errorf("not a literal at %q", p.s[p.i:min(len(p.s), p.i+10)])
}

// identifier is the name token at the start of s, as Python's tokenizer
// cuts it (ASCII letters, digits and _, and any non-ASCII character), or ""
// when there is none or it is not a valid identifier.
func identifier(s string) string {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		ascii := r < utf8.RuneSelf
		if ascii && !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || n > 0 && r >= '0' && r <= '9') {
			break
		}
		if !ascii && !(identAt(s, n) && (n > 0 || pystr.IsIdentifierStart(r))) {
			return "" // a non-ASCII character that cannot be in an identifier: a SyntaxError
		}
		n += size
	}
	return s[:n]
}

// identAt says whether an identifier character starts at byte i.
func identAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return pystr.IsIdentifierChar(r)
}

// items reads "a, b, ...)" up to close; comma says whether one was seen
// (it makes "(x,)" a tuple).
func (p *litParser) items(close byte) (xs []any, comma bool, err error) {
	xs = []any{}
	for {
		p.space()
		if p.peek() == close {
			p.i++
			return xs, comma, nil
		}
		if len(xs) > 0 {
			if p.peek() != ',' {
				return nil, false, fmt.Errorf("want , or %c", close)
			}
			p.i++
			comma = true
			p.space()
			if p.peek() == close {
				p.i++
				return xs, comma, nil
			}
		}
		v, err := p.expr()
		if err != nil {
			return nil, false, err
		}
		xs = append(xs, v)
	}
}

func (p *litParser) dict() (any, error) {
	p.i++
	p.space()
	if p.peek() == '}' {
		p.i++
		return &pyDict{}, nil
	}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.peek() != ':' {
		xs, _, err := p.itemsFrom('}', first)
		if err != nil {
			return nil, err
		}
		var set pySet
		seen := map[string]bool{}
		for _, x := range xs {
			if !hashable(x) {
				return nil, errors.New("unhashable set element")
			}
			if h := hashKey(x); !seen[h] {
				seen[h] = true
				set = append(set, x)
			}
		}
		return set, nil
	}
	d := &pyDict{}
	k := first
	for {
		p.i++ // the colon
		p.space()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !hashable(k) {
			return nil, errors.New("unhashable dict key")
		}
		d.set(k, v)
		p.space()
		switch p.peek() {
		case '}':
			p.i++
			return d, nil
		case ',':
			p.i++
			p.space()
			if p.peek() == '}' {
				p.i++
				return d, nil
			}
		default:
			return nil, errors.New("want , or }")
		}
		if k, err = p.expr(); err != nil {
			return nil, err
		}
		p.space()
		if p.peek() != ':' {
			return nil, errors.New("want :")
		}
	}
}

// itemsFrom continues a set display after its first element.
func (p *litParser) itemsFrom(close byte, first any) ([]any, bool, error) {
	p.space()
	switch p.peek() {
	case close:
		p.i++
		return []any{first}, false, nil
	case ',':
		p.i++
		rest, _, err := p.items(close)
		return append([]any{first}, rest...), true, err
	}
	return nil, false, fmt.Errorf("want , or %c", close)
}

func hashable(v any) bool {
	switch x := v.(type) {
	case pyList, pySet, *pyDict:
		return false
	case pyTuple:
		for _, e := range x {
			if !hashable(e) {
				return false
			}
		}
	}
	return true
}

// hashKey is equal for values Python finds equal as set elements and dict
// keys: 1, 1.0, True and (1+0j) are one key.
func hashKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "n1"
		}
		return "n0"
	case string:
		return "s" + x
	case pyBytes:
		return "b" + string(x)
	case pyNumber:
		if x.kind == complexNum && x.im == 0 {
			x = pyFloatNum(x.re)
		}
		if x.kind == floatNum && x.re == math.Trunc(x.re) && !math.IsInf(x.re, 0) {
			n, _ := big.NewFloat(x.re).Int(nil)
			x = pyInt(n)
		}
		return "n" + x.repr()
	case pyTuple:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = hashKey(e)
		}
		return "t(" + strings.Join(parts, "\x00") + ")"
	}
	return pyRepr(v)
}

// number reads a numeric literal as Python's tokenizer does: underscores
// only between digits, no leading zeros in a non-zero decimal integer,
// 0x/0o/0b integers, floats, and j for imaginary numbers. A letter or digit
// right after the literal is an error ("invalid decimal literal").
func (p *litParser) number() (any, error) {
	n := &numScan{s: p.s, i: p.i}
	var v any
	var err error
	if n.s[n.i] == '0' && n.i+1 < len(n.s) && strings.IndexByte("xXoObB", n.s[n.i+1]) >= 0 {
		v, err = n.prefixedInt()
	} else {
		v, err = p.decimalNumber(n)
	}
	if err != nil {
		return nil, err
	}
	if identAt(n.s, n.i) || n.i < len(n.s) && n.s[n.i] == '.' {
		return nil, errors.New("invalid number literal")
	}
	p.i = n.i
	return v, nil
}

// numScan reads a numeric literal of s from i on.
type numScan struct {
	s string
	i int
}

// digits reads digits that ok accepts, with single underscores between
// them; false when there are none or an underscore ends them.
func (n *numScan) digits(ok func(byte) bool) (string, bool) {
	s := n.s
	var sb strings.Builder
	for {
		if n.i < len(s) && ok(s[n.i]) {
			sb.WriteByte(s[n.i])
			n.i++
			continue
		}
		if n.i+1 < len(s) && s[n.i] == '_' && sb.Len() > 0 && ok(s[n.i+1]) {
			n.i++
			continue
		}
		return sb.String(), sb.Len() > 0 && (n.i >= len(s) || s[n.i] != '_')
	}
}

func isDecimalDigit(c byte) bool { return c >= '0' && c <= '9' }

// prefixedInt reads a 0x, 0o or 0b integer (an underscore may follow the
// prefix).
func (n *numScan) prefixedInt() (any, error) {
	base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[n.s[n.i+1]|0x20]
	n.i += 2
	if n.i < len(n.s) && n.s[n.i] == '_' {
		n.i++
	}
	ds, ok := n.digits(func(c byte) bool {
		d := int(c|0x20) - 'a' + 10
		if isDecimalDigit(c) {
			d = int(c - '0')
		}
		return (isDecimalDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f') && d < base
	})
	if !ok {
		return nil, errors.New("invalid integer literal")
	}
	v, _ := new(big.Int).SetString(ds, base)
	return pyInt(v), nil
}

// decimalNumber reads a decimal integer, a float or an imaginary number.
func (p *litParser) decimalNumber(n *numScan) (any, error) {
	lit, isFloat, err := n.decimal()
	if err != nil {
		return nil, err
	}
	if n.i < len(n.s) && n.s[n.i]|0x20 == 'j' {
		n.i++
		f, _ := parseFloat(lit)
		return pyComplex(0, f), nil
	}
	if isFloat {
		f, _ := parseFloat(lit)
		return pyFloatNum(f), nil
	}
	if strings.Trim(lit, "0") != "" && lit[0] == '0' {
		return nil, errors.New("leading zeros in decimal integer literals are not permitted")
	}
	// An all-zero literal never reaches int() (CPython reads it with
	// strtoul), so only the others meet the digit limit.
	if strings.Trim(lit, "0") != "" && p.rules.tooManyDigits(len(lit)) {
		return nil, fmt.Errorf("exceeds the limit (%d digits) for integer string conversion", p.rules.maxDigits)
	}
	v, _ := new(big.Int).SetString(lit, 10)
	return pyInt(v), nil
}

// decimal reads the digits, fraction and exponent of a decimal literal,
// without underscores; isFloat when it has a point or an exponent.
func (n *numScan) decimal() (lit string, isFloat bool, err error) {
	s := n.s
	hasInt := false
	if isDecimalDigit(s[n.i]) {
		var ok bool
		if lit, ok = n.digits(isDecimalDigit); !ok {
			return "", false, errors.New("invalid decimal literal")
		}
		hasInt = true
	}
	if n.i < len(s) && s[n.i] == '.' {
		n.i++
		frac := ""
		if n.i < len(s) && isDecimalDigit(s[n.i]) {
			var ok bool
			if frac, ok = n.digits(isDecimalDigit); !ok {
				return "", false, errors.New("invalid decimal literal")
			}
		}
		if !hasInt && frac == "" {
			return "", false, errors.New("invalid syntax")
		}
		lit, isFloat = lit+"."+frac, true
	}
	if n.i < len(s) && s[n.i]|0x20 == 'e' {
		j := n.i + 1
		sign := ""
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			sign = s[j : j+1]
			j++
		}
		if j < len(s) && isDecimalDigit(s[j]) {
			n.i = j
			exp, ok := n.digits(isDecimalDigit)
			if !ok {
				return "", false, errors.New("invalid decimal literal")
			}
			lit, isFloat = lit+"e"+sign+exp, true
		}
	}
	return lit, isFloat, nil
}

// strings reads one or more adjacent string literals (Python joins them;
// bytes join only bytes). ok is false when no string literal starts here.
func (p *litParser) strings() (v any, ok bool, err error) {
	var sb strings.Builder
	kind := 0 // 1 str, 2 bytes
	for n := 0; ; n++ {
		j := p.i
		if n > 0 {
			p.space()
		}
		s, isBytes, found, err := p.str()
		if err != nil {
			return nil, true, err
		}
		if !found {
			p.i = j
			break
		}
		k := 1
		if isBytes {
			k = 2
		}
		if kind != 0 && kind != k {
			return nil, true, errors.New("cannot mix bytes and nonbytes literals")
		}
		kind = k
		sb.WriteString(s)
	}
	switch kind {
	case 0:
		return nil, false, nil
	case 2:
		return pyBytes(sb.String()), true, nil
	}
	return sb.String(), true, nil
}

// stringPrefixes are the valid prefixes, lower-cased.
var stringPrefixes = map[string]bool{"": true, "r": true, "u": true, "b": true, "br": true, "rb": true, "f": true, "fr": true, "rf": true}

// str reads one string literal with its prefix.
func (p *litParser) str() (s string, isBytes, found bool, err error) {
	j := p.i
	for j < len(p.s) && j-p.i < 2 && strings.IndexByte("rRuUbBfF", p.s[j]) >= 0 {
		j++
	}
	if j >= len(p.s) || (p.s[j] != '\'' && p.s[j] != '"') {
		return "", false, false, nil
	}
	prefix := strings.ToLower(p.s[p.i:j])
	if !stringPrefixes[prefix] {
		return "", false, false, nil
	}
	raw, isBytes, isF := strings.Contains(prefix, "r"), strings.Contains(prefix, "b"), strings.Contains(prefix, "f")
	q := p.s[j]
	end := string(q)
	if strings.HasPrefix(p.s[j:], strings.Repeat(end, 3)) {
		end = strings.Repeat(end, 3)
	}
	start := j + len(end)
	k := start
	for {
		if k >= len(p.s) {
			return "", false, true, errors.New("unterminated string literal")
		}
		c := p.s[k]
		if c == '\\' {
			k += 2
			continue
		}
		if len(end) == 1 && (c == '\n' || c == '\r') {
			return "", false, true, errors.New("unterminated string literal")
		}
		if strings.HasPrefix(p.s[k:], end) {
			break
		}
		k++
	}
	// Python reads source lines with universal newlines.
	body := strings.ReplaceAll(strings.ReplaceAll(p.s[start:k], "\r\n", "\n"), "\r", "\n")
	p.i = k + len(end)
	if isBytes {
		s, err = bytesBody(body, raw)
		return s, true, true, err
	}
	if isF {
		if body, err = fstringBody(body); err != nil {
			return "", false, true, err
		}
	}
	if raw {
		return body, false, true, nil
	}
	s, err = unescapeText(body)
	return s, false, true, err
}

// fstringBody is an f-string without fields: {{ and }} stand for braces;
// a field ({...}) is an expression and a lone } an error.
func fstringBody(body string) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '{' || c == '}' {
			if i+1 < len(body) && body[i+1] == c {
				sb.WriteByte(c)
				i++
				continue
			}
			if c == '{' {
				return "", errors.New("an f-string field is an expression")
			}
			return "", errors.New("f-string: single '}' is not allowed")
		}
		sb.WriteByte(c)
	}
	return sb.String(), nil
}

// bytesBody decodes a bytes literal: ASCII source only; \x and octal
// escapes (an octal value above 0o377 keeps its low byte); \u, \U and \N are
// not escapes in bytes. The result holds one character per byte value.
func bytesBody(body string, raw bool) (string, error) {
	if !isASCII(body) {
		return "", errors.New("bytes can only contain ASCII literal characters")
	}
	if raw || !strings.Contains(body, `\`) {
		return body, nil
	}
	var sb strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 >= len(body) {
			sb.WriteByte(body[i])
			continue
		}
		switch e := body[i+1]; {
		case e == 'u' || e == 'U' || e == 'N':
			sb.WriteByte('\\')
		case e >= '0' && e <= '7':
			v, j := 0, i+1
			for ; j < len(body) && j < i+4 && body[j] >= '0' && body[j] <= '7'; j++ {
				v = v*8 + int(body[j]-'0')
			}
			sb.WriteByte(byte(v))
			i = j - 1
		default:
			n := 2
			if e == 'x' {
				n = 4
			}
			if i+n > len(body) {
				return "", errors.New("truncated \\x escape")
			}
			d, err := unicodeEscape(body[i : i+n])
			if err != nil {
				return "", err
			}
			for _, r := range d {
				sb.WriteByte(byte(r)) // below 256: \x has two hex digits
			}
			i += n - 1
		}
	}
	return sb.String(), nil
}
