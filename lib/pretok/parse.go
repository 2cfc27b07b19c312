package pretok

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/ucd"
)

// Unicode is the version of the character classes: Oniguruma's in the
// tokenizers builds servers run (and Rust regex's in tiktoken's).
var Unicode = ucd.Unicode16

type op uint8

const (
	opClass     op = iota // one rune in class
	opLit                 // the rune lit (folded when fold)
	opAlt                 // the first of alts that matches
	opRepeat              // body min..max times
	opLook                // look-ahead or look-behind
	opAtomic              // body once, no backtracking into it
	opBegLine             // ^
	opEndLine             // $
	opBegText             // \A
	opEndText             // \z
	opEndTextNL           // \Z
	opWordB               // \b
	opNotWordB            // \B
	opEmpty               // matches the empty string
)

// node is a parsed expression; a sequence is a slice of nodes.
type node struct {
	op       op
	class    *class
	lit      rune
	fold     bool
	alts     [][]*node // opAlt
	body     []*node   // opRepeat, opLook, opAtomic
	min, max int       // opRepeat; max < 0: no bound
	lazy     bool
	behind   bool // opLook
	neg      bool // opLook
}

type parser struct {
	src  string
	s    string
	fold bool
}

// syntaxError says where in the pattern it went wrong.
func (p *parser) errorf(format string, args ...any) error {
	at := len(p.src) - len(p.s)
	return fmt.Errorf("pattern %q at offset %d: %s", p.src, at, fmt.Sprintf(format, args...))
}

func parse(src string) ([]*node, error) {
	p := &parser{src: src, s: src}
	seq, err := p.alternation()
	if err != nil {
		return nil, err
	}
	if p.s != "" {
		return nil, p.errorf("unmatched )")
	}
	return seq, nil
}

// alternation reads a|b|… up to a ) or the end.
func (p *parser) alternation() ([]*node, error) {
	var alts [][]*node
	fold := p.fold // a (?i) inside one alternative lasts to the group's end
	for {
		seq, err := p.sequence()
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
		if p.s == "" || p.s[0] != '|' {
			break
		}
		p.s = p.s[1:]
	}
	p.fold = fold
	if len(alts) == 1 {
		return alts[0], nil
	}
	return []*node{{op: opAlt, alts: alts}}, nil
}

func (p *parser) sequence() ([]*node, error) {
	var seq []*node
	for p.s != "" && p.s[0] != '|' && p.s[0] != ')' {
		n, err := p.atom()
		if err != nil {
			return nil, err
		}
		if n == nil {
			continue // a flag group: (?i)
		}
		if n, err = p.quantifier(n); err != nil {
			return nil, err
		}
		seq = append(seq, n)
	}
	return seq, nil
}

func (p *parser) quantifier(n *node) (*node, error) {
	for p.s != "" {
		min, max := -1, -1
		switch p.s[0] {
		case '*':
			min, max = 0, -1
			p.s = p.s[1:]
		case '+':
			min, max = 1, -1
			p.s = p.s[1:]
		case '?':
			min, max = 0, 1
			p.s = p.s[1:]
		case '{':
			lo, hi, rest, ok := interval(p.s)
			if !ok {
				return n, nil // a literal {, as in Oniguruma
			}
			min, max = lo, hi
			p.s = rest
		default:
			return n, nil
		}
		if isAnchor(n) {
			return nil, p.errorf("a quantifier after an anchor")
		}
		r := &node{op: opRepeat, body: []*node{n}, min: min, max: max}
		if p.s != "" && p.s[0] == '?' {
			r.lazy = true
			p.s = p.s[1:]
		} else if p.s != "" && p.s[0] == '+' {
			// Possessive: the greedy repeat, never given back.
			p.s = p.s[1:]
			r = &node{op: opAtomic, body: []*node{r}}
		}
		n = r
	}
	return n, nil
}

func isAnchor(n *node) bool {
	switch n.op {
	case opBegLine, opEndLine, opBegText, opEndText, opEndTextNL, opWordB, opNotWordB, opLook:
		return true
	}
	return false
}

// interval reads {n}, {n,}, {,m} or {n,m}; ok is false when s does not
// start with one (Oniguruma then reads the brace as a literal).
func interval(s string) (lo, hi int, rest string, ok bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, 0, s, false
	}
	body := s[1:end]
	a, b, comma := strings.Cut(body, ",")
	num := func(t string, def int) (int, bool) {
		if t == "" {
			return def, true
		}
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return 0, false
			}
		}
		v, err := strconv.Atoi(t)
		return v, err == nil && v <= 100000
	}
	if a == "" && (!comma || b == "") {
		return 0, 0, s, false
	}
	lo, ok1 := num(a, 0)
	if !comma {
		return lo, lo, s[end+1:], ok1
	}
	hi, ok2 := num(b, -1)
	if !ok1 || !ok2 || hi >= 0 && hi < lo {
		return 0, 0, s, false
	}
	return lo, hi, s[end+1:], true
}

func (p *parser) atom() (*node, error) {
	c := p.s[0]
	switch c {
	case '(':
		return p.group()
	case '[':
		cl, err := p.bracket()
		if err != nil {
			return nil, err
		}
		return &node{op: opClass, class: cl}, nil
	case '.':
		p.s = p.s[1:]
		return &node{op: opClass, class: notNewline}, nil
	case '^':
		p.s = p.s[1:]
		return &node{op: opBegLine}, nil
	case '$':
		p.s = p.s[1:]
		return &node{op: opEndLine}, nil
	case '\\':
		return p.escape()
	case '*', '+', '?':
		return nil, p.errorf("nothing to repeat")
	}
	r, size := utf8.DecodeRuneInString(p.s)
	p.s = p.s[size:]
	return p.literal(r), nil
}

func (p *parser) literal(r rune) *node {
	if p.fold && len(Unicode.Orbit(r)) > 1 {
		return &node{op: opLit, lit: Unicode.SimpleFold(r), fold: true}
	}
	return &node{op: opLit, lit: r}
}

func (p *parser) group() (*node, error) {
	p.s = p.s[1:]
	var n *node
	fold := p.fold
	switch {
	case strings.HasPrefix(p.s, "?:"):
		p.s = p.s[2:]
	case strings.HasPrefix(p.s, "?="), strings.HasPrefix(p.s, "?!"):
		n = &node{op: opLook, neg: p.s[1] == '!'}
		p.s = p.s[2:]
	case strings.HasPrefix(p.s, "?<="), strings.HasPrefix(p.s, "?<!"):
		n = &node{op: opLook, behind: true, neg: p.s[2] == '!'}
		p.s = p.s[3:]
	case strings.HasPrefix(p.s, "?>"):
		n = &node{op: opAtomic}
		p.s = p.s[2:]
	case strings.HasPrefix(p.s, "?<") || strings.HasPrefix(p.s, "?P<") || strings.HasPrefix(p.s, "?'"):
		// A named group captures, which matching does not need.
		end := strings.IndexAny(p.s, ">'")
		if end < 0 {
			return nil, p.errorf("unterminated group name")
		}
		p.s = p.s[end+1:]
	case strings.HasPrefix(p.s, "?"):
		// Flags: (?i), (?-i), (?i:…), (?i-i:…).
		i := 1
		on := true
		newFold := p.fold
		for ; i < len(p.s) && p.s[i] != ')' && p.s[i] != ':'; i++ {
			switch p.s[i] {
			case '-':
				on = false
			case 'i':
				newFold = on
			default:
				return nil, p.errorf("the flag (?%c) is not supported", p.s[i])
			}
		}
		if i == len(p.s) {
			return nil, p.errorf("unterminated group")
		}
		if p.s[i] == ')' {
			// (?i) applies to the rest of the enclosing group.
			p.fold = newFold
			p.s = p.s[i+1:]
			return nil, nil
		}
		p.fold = newFold
		p.s = p.s[i+1:]
	}
	body, err := p.alternation()
	if err != nil {
		return nil, err
	}
	if p.s == "" || p.s[0] != ')' {
		return nil, p.errorf("missing )")
	}
	p.s = p.s[1:]
	p.fold = fold
	if n == nil {
		if len(body) == 1 {
			return body[0], nil
		}
		return &node{op: opRepeat, body: body, min: 1, max: 1}, nil
	}
	n.body = body
	if n.behind {
		if _, hi := width(body); hi < 0 {
			return nil, p.errorf("a look-behind of unbounded length (Oniguruma refuses it too)")
		}
	}
	return n, nil
}

// escape reads a backslash escape outside brackets.
func (p *parser) escape() (*node, error) {
	if len(p.s) < 2 {
		return nil, p.errorf("trailing backslash")
	}
	switch p.s[1] {
	case 'A':
		p.s = p.s[2:]
		return &node{op: opBegText}, nil
	case 'z':
		p.s = p.s[2:]
		return &node{op: opEndText}, nil
	case 'Z':
		p.s = p.s[2:]
		return &node{op: opEndTextNL}, nil
	case 'b':
		p.s = p.s[2:]
		return &node{op: opWordB}, nil
	case 'B':
		p.s = p.s[2:]
		return &node{op: opNotWordB}, nil
	case 'G', 'K', 'R', 'X', 'N', 'O', 'y', 'Y', 'k', 'g', 'Q', 'E':
		return nil, p.errorf(`\%c is not supported`, p.s[1])
	}
	if p.s[1] >= '1' && p.s[1] <= '9' {
		return nil, p.errorf("back-references are not supported")
	}
	cl, r, err := p.escapeAtom()
	if err != nil {
		return nil, err
	}
	if cl != nil {
		return &node{op: opClass, class: cl}, nil
	}
	return p.literal(r), nil
}

// escapeAtom reads an escape that stands for a class (\d, \p{L}) or one
// rune (\n, \x41), in or out of brackets.
func (p *parser) escapeAtom() (*class, rune, error) {
	c := p.s[1]
	p.s = p.s[2:]
	switch c {
	case 'd', 'D':
		return negIf(c == 'D', catClass(ucd.Of(ucd.Nd))), 0, nil
	case 'w', 'W':
		return negIf(c == 'W', wordClass), 0, nil
	case 's', 'S':
		return negIf(c == 'S', spaceClass), 0, nil
	case 'h', 'H':
		return negIf(c == 'H', hexClass), 0, nil
	case 'p', 'P':
		neg := c == 'P'
		end := strings.IndexByte(p.s, '}')
		if !strings.HasPrefix(p.s, "{") || end < 0 {
			return nil, 0, p.errorf(`\%c without {name}`, c)
		}
		name := p.s[1:end]
		p.s = p.s[end+1:]
		if strings.HasPrefix(name, "^") {
			neg, name = !neg, name[1:]
		}
		cl, ok := property(name)
		if !ok {
			return nil, 0, p.errorf("the property \\p{%s} is not supported (general categories, White_Space, Any and Assigned are)", name)
		}
		return negIf(neg, cl), 0, nil
	case 't':
		return nil, '\t', nil
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 'f':
		return nil, '\f', nil
	case 'v':
		return nil, '\v', nil
	case 'a':
		return nil, '\a', nil
	case 'e':
		return nil, 0x1b, nil
	case 'x':
		if strings.HasPrefix(p.s, "{") {
			end := strings.IndexByte(p.s, '}')
			if end < 0 {
				return nil, 0, p.errorf(`unterminated \x{`)
			}
			v, err := strconv.ParseUint(p.s[1:end], 16, 32)
			if err != nil || v > utf8.MaxRune {
				return nil, 0, p.errorf(`bad \x{%s}`, p.s[1:end])
			}
			p.s = p.s[end+1:]
			return nil, rune(v), nil
		}
		return nil, p.hex(2), nil
	case 'u':
		if len(p.s) < 4 {
			return nil, 0, p.errorf(`\u needs four hex digits`)
		}
		r := p.hex(4)
		return nil, r, nil
	case '0':
		return nil, p.octal(2), nil
	case 'c':
		if p.s == "" {
			return nil, 0, p.errorf(`\c needs a character`)
		}
		r := rune(p.s[0] & 0x1f)
		p.s = p.s[1:]
		return nil, r, nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return nil, 0, p.errorf(`\%c is not supported`, c)
	}
	// An escaped punctuation or non-ASCII character is itself.
	p.s = p.src[len(p.src)-len(p.s)-1:]
	r, size := utf8.DecodeRuneInString(p.s)
	p.s = p.s[size:]
	return nil, r, nil
}

func (p *parser) hex(n int) rune {
	v := rune(0)
	i := 0
	for ; i < n && i < len(p.s); i++ {
		d := strings.IndexByte("0123456789abcdef", p.s[i]|0x20)
		if d < 0 {
			break
		}
		v = v*16 + rune(d)
	}
	p.s = p.s[i:]
	return v
}

func (p *parser) octal(n int) rune {
	v := rune(0)
	i := 0
	for ; i < n && i < len(p.s) && p.s[i] >= '0' && p.s[i] <= '7'; i++ {
		v = v*8 + rune(p.s[i]-'0')
	}
	p.s = p.s[i:]
	return v
}

// bracket reads a [...] class.
func (p *parser) bracket() (*class, error) {
	p.s = p.s[1:]
	cl := &class{}
	if strings.HasPrefix(p.s, "^") {
		cl.neg = true
		p.s = p.s[1:]
	}
	first := true
	for {
		if p.s == "" {
			return nil, p.errorf("missing ]")
		}
		if p.s[0] == ']' && !first {
			p.s = p.s[1:]
			break
		}
		first = false
		if strings.HasPrefix(p.s, "&&") {
			return nil, p.errorf("class intersection (&&) is not supported")
		}
		if strings.HasPrefix(p.s, "[:") {
			return nil, p.errorf("POSIX bracket classes ([:alpha:]) are not supported")
		}
		if p.s[0] == '[' {
			sub, err := p.bracket()
			if err != nil {
				return nil, err
			}
			cl.subs = append(cl.subs, sub)
			continue
		}
		lo, sub, err := p.bracketAtom()
		if err != nil {
			return nil, err
		}
		if sub != nil {
			cl.subs = append(cl.subs, sub)
			continue
		}
		hi := lo
		if len(p.s) >= 2 && p.s[0] == '-' && p.s[1] != ']' {
			p.s = p.s[1:]
			var sub2 *class
			if hi, sub2, err = p.bracketAtom(); err != nil {
				return nil, err
			}
			if sub2 != nil || hi < lo {
				return nil, p.errorf("bad range in a class")
			}
		}
		cl.ranges = append(cl.ranges, [2]rune{lo, hi})
	}
	if p.fold {
		cl.fold = true
	}
	cl.prepare()
	return cl, nil
}

func (p *parser) bracketAtom() (rune, *class, error) {
	if p.s[0] == '\\' {
		if len(p.s) < 2 {
			return 0, nil, p.errorf("trailing backslash")
		}
		if p.s[1] == 'b' {
			p.s = p.s[2:]
			return '\b', nil, nil
		}
		cl, r, err := p.escapeAtom()
		return r, cl, err
	}
	r, size := utf8.DecodeRuneInString(p.s)
	p.s = p.s[size:]
	return r, nil, nil
}

// width is the least and most runes seq can match (hi < 0: no bound).
func width(seq []*node) (lo, hi int) {
	for _, n := range seq {
		l, h := nodeWidth(n)
		lo += l
		if hi >= 0 {
			if h < 0 {
				hi = -1
			} else {
				hi += h
			}
		}
	}
	return lo, hi
}

func nodeWidth(n *node) (int, int) {
	switch n.op {
	case opClass, opLit:
		return 1, 1
	case opAlt:
		lo, hi := -1, 0
		for _, a := range n.alts {
			l, h := width(a)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return lo, hi
	case opRepeat:
		l, h := width(n.body)
		if n.max < 0 || h < 0 {
			if h == 0 {
				return l * n.min, 0
			}
			return l * n.min, -1
		}
		return l * n.min, h * n.max
	case opAtomic:
		return width(n.body)
	}
	return 0, 0
}
