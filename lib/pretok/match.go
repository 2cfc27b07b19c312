package pretok

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Regexp is a compiled pattern; it is safe for concurrent use.
type Regexp struct {
	src     string
	prog    *inst
	repeats int
}

// inst is one step of the compiled program: a node with its successor.
type inst struct {
	op     op
	class  *class
	lit    rune
	fold   bool
	next   *inst
	alts   []*inst // opAlt: the first step of each alternative
	body   *inst   // opRepeat, opLook, opAtomic
	min    int
	max    int
	lazy   bool
	behind bool
	neg    bool
	id     int   // opRepeat: its counter; opLoop: the repeat's
	rep    *inst // opLoop: the repeat it closes
	single bool  // opRepeat of one rune (a class or a literal): no counter needed
	minW   int   // opLook behind: the runes the body can match
	maxW   int
}

// Two more steps that only compile makes.
const (
	opLoop   op = iota + 100 // the end of a repeat's body: go round again
	opDone                   // the end of the pattern, a look-ahead or an atomic group
	opDoneAt                 // the end of a look-behind, which must end where it looks from
)

// Compile parses a pattern in Oniguruma's Ruby syntax. What the engine
// does not support (back-references, \X, POSIX brackets, class
// intersection, the flags m and x) is an error naming it, never a silent
// other meaning.
func Compile(src string) (*Regexp, error) {
	prepareClasses()
	seq, err := parse(src)
	if err != nil {
		return nil, err
	}
	re := &Regexp{src: src}
	re.prog = re.link(seq, &inst{op: opDone})
	return re, nil
}

// MustCompile is Compile for patterns known to be valid.
func MustCompile(src string) *Regexp {
	re, err := Compile(src)
	if err != nil {
		panic(err)
	}
	return re
}

func (re *Regexp) String() string { return re.src }

// link compiles seq so that it continues with next.
func (re *Regexp) link(seq []*node, next *inst) *inst {
	for i := len(seq) - 1; i >= 0; i-- {
		next = re.compile(seq[i], next)
	}
	return next
}

func (re *Regexp) compile(n *node, next *inst) *inst {
	in := &inst{op: n.op, class: n.class, lit: n.lit, fold: n.fold, next: next, min: n.min, max: n.max, lazy: n.lazy, behind: n.behind, neg: n.neg}
	switch n.op {
	case opAlt:
		for _, a := range n.alts {
			in.alts = append(in.alts, re.link(a, next))
		}
	case opRepeat:
		if len(n.body) == 1 && (n.body[0].op == opClass || n.body[0].op == opLit) {
			in.single = true
			in.body = re.compile(n.body[0], nil)
			break
		}
		in.id = re.repeats
		re.repeats++
		in.body = re.link(n.body, &inst{op: opLoop, rep: in, id: in.id})
	case opLook:
		end := &inst{op: opDone}
		if n.behind {
			end.op = opDoneAt
		}
		in.body = re.link(n.body, end)
		in.minW, in.maxW = width(n.body)
	case opAtomic:
		in.body = re.link(n.body, &inst{op: opDone})
	}
	return in
}

// ErrTimeout is the error of a match that ran past its time limit.
var ErrTimeout = errors.New("pattern matching ran past its time limit")

// Limit bounds the work of matching one text: a deadline (zero: none) and
// a context whose end stops it (nil: none).
type Limit struct {
	Deadline time.Time
	Ctx      context.Context
}

// machine is the state of one search.
type machine struct {
	re     *Regexp
	s      string
	count  []int
	start  []int
	done   int // where opDone was reached
	target int // look-behind: where its body must end
	steps  int
	lim    Limit
	err    error
}

var machines = sync.Pool{New: func() any { return new(machine) }}

// FindAll calls f with the start and end of each match in s, left to right
// and not overlapping, as Oniguruma's search finds them (an empty match
// right after the previous match is skipped). s must be valid UTF-8.
func (re *Regexp) FindAll(s string, lim Limit, f func(start, end int)) error {
	m := machines.Get().(*machine)
	defer machines.Put(m)
	*m = machine{re: re, s: s, count: m.count[:0], start: m.start[:0], lim: lim}
	for range re.repeats {
		m.count = append(m.count, 0)
		m.start = append(m.start, 0)
	}
	lastEnd := -1
	for at := 0; at <= len(s); {
		st, end, ok := m.search(at)
		if m.err != nil {
			return m.err
		}
		if !ok {
			return nil
		}
		if st == end && end == lastEnd {
			if end >= len(s) {
				return nil
			}
			_, size := utf8.DecodeRuneInString(s[end:])
			at = end + size
			continue
		}
		f(st, end)
		lastEnd = end
		at = end
		if st == end {
			if end >= len(s) {
				return nil
			}
			// Oniguruma's next search starts at the end; the empty match
			// there is then skipped above.
		}
	}
	return nil
}

// search finds the leftmost match starting at or after at.
func (m *machine) search(at int) (int, int, bool) {
	for p := at; ; {
		if m.run(m.re.prog, p) {
			return p, m.done, true
		}
		if m.err != nil || p >= len(m.s) {
			return 0, 0, false
		}
		_, size := utf8.DecodeRuneInString(m.s[p:])
		p += size
	}
}

const checkEvery = 1 << 12

func (m *machine) tick() bool {
	m.steps++
	if m.steps%checkEvery != 0 {
		return true
	}
	if !m.lim.Deadline.IsZero() && time.Now().After(m.lim.Deadline) {
		m.err = fmt.Errorf("pattern %q: %w", m.re.src, ErrTimeout)
		return false
	}
	if m.lim.Ctx != nil && m.lim.Ctx.Err() != nil {
		m.err = m.lim.Ctx.Err()
		return false
	}
	return true
}

// one matches a single-rune step at i, returning the end or -1.
func (m *machine) one(in *inst, i int) int {
	if i >= len(m.s) {
		return -1
	}
	r, size := rune(m.s[i]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(m.s[i:])
	}
	if in.op == opClass {
		if in.class.has(r) {
			return i + size
		}
		return -1
	}
	if r == in.lit || in.fold && Unicode.SimpleFold(r) == in.lit {
		return i + size
	}
	return -1
}

func (m *machine) run(in *inst, i int) bool {
	for in != nil {
		if !m.tick() {
			return false
		}
		switch in.op {
		case opClass, opLit:
			if i = m.one(in, i); i < 0 {
				return false
			}
			in = in.next
		case opAlt:
			last := len(in.alts) - 1
			for _, a := range in.alts[:last] {
				if m.run(a, i) {
					return true
				}
				if m.err != nil {
					return false
				}
			}
			in = in.alts[last]
		case opRepeat:
			if in.single {
				return m.repeatOne(in, i)
			}
			id := in.id
			oc, os := m.count[id], m.start[id]
			m.count[id], m.start[id] = 0, -1
			if m.loop(in, i) {
				return true
			}
			m.count[id], m.start[id] = oc, os
			return false
		case opLoop:
			rep := in.rep
			if i == m.start[rep.id] {
				// An iteration that matched nothing ends the repeat.
				in = rep.next
				continue
			}
			return m.loop(rep, i)
		case opLook:
			ok := m.look(in, i)
			if m.err != nil {
				return false
			}
			if ok == in.neg {
				return false
			}
			in = in.next
		case opAtomic:
			if !m.run(in.body, i) {
				return false
			}
			i = m.done
			in = in.next
		case opDone:
			m.done = i
			return true
		case opDoneAt:
			return i == m.target
		case opBegLine:
			if i != 0 && m.s[i-1] != '\n' {
				return false
			}
			in = in.next
		case opEndLine:
			if i != len(m.s) && m.s[i] != '\n' {
				return false
			}
			in = in.next
		case opBegText:
			if i != 0 {
				return false
			}
			in = in.next
		case opEndText:
			if i != len(m.s) {
				return false
			}
			in = in.next
		case opEndTextNL:
			if i != len(m.s) && !(i == len(m.s)-1 && m.s[i] == '\n') {
				return false
			}
			in = in.next
		case opWordB, opNotWordB:
			if m.wordBoundary(i) != (in.op == opWordB) {
				return false
			}
			in = in.next
		case opEmpty:
			in = in.next
		}
	}
	return true
}

// loop is one more round of a repeat, or what follows it.
func (m *machine) loop(rep *inst, i int) bool {
	id := rep.id
	n, st := m.count[id], m.start[id]
	more := rep.max < 0 || n < rep.max
	tryBody := func() bool {
		if !more {
			return false
		}
		m.count[id], m.start[id] = n+1, i
		if m.run(rep.body, i) {
			return true
		}
		m.count[id], m.start[id] = n, st
		return false
	}
	if rep.lazy {
		if n >= rep.min && m.run(rep.next, i) {
			return true
		}
		return m.err == nil && tryBody()
	}
	if tryBody() {
		return true
	}
	return m.err == nil && n >= rep.min && m.run(rep.next, i)
}

// repeatOne is a repeat of one rune: greedy takes the longest run and
// gives back a rune at a time; lazy takes one more at a time.
func (m *machine) repeatOne(rep *inst, i int) bool {
	if rep.lazy {
		for n := 0; ; n++ {
			if n >= rep.min && m.run(rep.next, i) {
				return true
			}
			if m.err != nil || rep.max >= 0 && n >= rep.max {
				return false
			}
			if i = m.one(rep.body, i); i < 0 {
				return false
			}
		}
	}
	n, e := 0, i
	for rep.max < 0 || n < rep.max {
		j := m.one(rep.body, e)
		if j < 0 {
			break
		}
		n, e = n+1, j
	}
	for ; n >= rep.min; n-- {
		if m.run(rep.next, e) {
			return true
		}
		if m.err != nil || n == 0 {
			return false
		}
		_, size := utf8.DecodeLastRuneInString(m.s[:e])
		e -= size
	}
	return false
}

// look runs a look-ahead at i, or a look-behind ending at i.
func (m *machine) look(in *inst, i int) bool {
	if !in.behind {
		return m.run(in.body, i)
	}
	target := m.target
	defer func() { m.target = target }()
	m.target = i
	// Start the body each number of runes back that it can match.
	j := i
	for k := 0; k <= in.maxW; k++ {
		if k >= in.minW && m.run(in.body, j) {
			return true
		}
		if m.err != nil || j == 0 {
			return false
		}
		_, size := utf8.DecodeLastRuneInString(m.s[:j])
		j -= size
	}
	return false
}

func (m *machine) wordBoundary(i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(m.s[:i])
		before = wordClass.has(r)
	}
	if i < len(m.s) {
		r, _ := utf8.DecodeRuneInString(m.s[i:])
		after = wordClass.has(r)
	}
	return before != after
}
