package lifbench

import (
	"math"
	"math/big"
	"strings"
)

// pyLoads is json.loads with Python's defaults: one JSON value with JSON
// whitespace around it; NaN, Infinity and -Infinity are numbers; control
// characters inside strings are refused (strict=True); objects keep their
// key order (a repeated key keeps its first place and its last value); an
// integer of more than r.maxDigits digits is refused (int() raises
// ValueError, which json.loads passes on). Numbers come back as pyNumber,
// objects as *pyDict, arrays as []any.
//
// Nesting deeper than Python's recursion limit (about a thousand levels)
// makes json.loads raise RecursionError, which the official is_valid_json
// does not catch; here it parses (docs/lifbench.md lists the replies that
// make the official scorer raise).
func pyLoads(s string, r pyRules) (any, bool) {
	p := &jsonParser{s: s, rules: r}
	p.ws()
	v, ok := p.value()
	if !ok {
		return nil, false
	}
	p.ws()
	return v, p.i == len(s)
}

type jsonParser struct {
	s     string
	i     int
	rules pyRules
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) lit(w string) bool {
	if len(p.s)-p.i >= len(w) && p.s[p.i:p.i+len(w)] == w {
		p.i += len(w)
		return true
	}
	return false
}

func (p *jsonParser) value() (any, bool) {
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.str()
	case c == '[':
		p.i++
		xs := []any{}
		p.ws()
		if p.lit("]") {
			return xs, true
		}
		for {
			p.ws()
			v, ok := p.value()
			if !ok {
				return nil, false
			}
			xs = append(xs, v)
			p.ws()
			if p.lit("]") {
				return xs, true
			}
			if !p.lit(",") {
				return nil, false
			}
		}
	case c == '{':
		p.i++
		d := &pyDict{}
		p.ws()
		if p.lit("}") {
			return d, true
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, false
			}
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.ws()
			if !p.lit(":") {
				return nil, false
			}
			p.ws()
			v, ok := p.value()
			if !ok {
				return nil, false
			}
			d.set(k, v)
			p.ws()
			if p.lit("}") {
				return d, true
			}
			if !p.lit(",") {
				return nil, false
			}
		}
	case p.lit("null"):
		return nil, true
	case p.lit("true"):
		return true, true
	case p.lit("false"):
		return false, true
	case p.lit("NaN"):
		return pyFloatNum(math.NaN()), true
	case p.lit("Infinity"):
		return pyFloatNum(math.Inf(1)), true
	case p.lit("-Infinity"):
		return pyFloatNum(math.Inf(-1)), true
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, false
}

// str reads a string token; unquote decodes its escapes.
func (p *jsonParser) str() (string, bool) {
	j := p.i + 1
	for j < len(p.s) {
		switch c := p.s[j]; {
		case c == '"':
			s, ok := unquote([]byte(p.s[p.i : j+1]))
			p.i = j + 1
			return s, ok
		case c == '\\':
			j += 2
		case c < 0x20:
			return "", false
		default:
			j++
		}
	}
	return "", false
}

// number is the scanner's -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)? with ASCII
// digits; an integer is int() of it, anything else float().
func (p *jsonParser) number() (any, bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	p.lit("-")
	switch {
	case p.lit("0"):
	case digits() == 0:
		return nil, false
	}
	isFloat := false
	if j := p.i; p.lit(".") {
		if digits() == 0 {
			p.i = j // "1." is the number 1 followed by "."
		} else {
			isFloat = true
		}
	}
	if j := p.i; p.lit("e") || p.lit("E") {
		_ = p.lit("+") || p.lit("-")
		if digits() == 0 {
			p.i = j
		} else {
			isFloat = true
		}
	}
	lit := p.s[start:p.i]
	if !isFloat {
		if p.rules.tooManyDigits(len(strings.TrimPrefix(lit, "-"))) {
			return nil, false
		}
		n, _ := new(big.Int).SetString(lit, 10)
		return pyInt(n), true
	}
	f, ok := parseFloat(lit)
	return pyFloatNum(f), ok
}
