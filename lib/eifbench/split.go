package eifbench

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/split"
)

// How an answer was found in the reply.
const (
	viaMarkers = "markers"
	viaHeading = "heading"
	viaNumber  = "numbered"
)

// Answer is the part of a reply that answers one sub-instruction.
type Answer struct {
	Text  string
	Found bool
	Via   string // markers, heading or numbered
	// Markers says why the reply's markers were not trusted (one of the
	// Markers* reasons), so that the judge gets the whole reply instead.
	Markers string
}

// Why a reply's sub-instruction markers cannot say which answer is which.
// Guessing would judge one sub-instruction's constraints against another's
// answer; the whole reply is what the official judge sees anyway.
const (
	MarkersMisnumbered = "misnumbered" // a number outside 1..n
	MarkersDuplicated  = "duplicated"  // a number used twice
	MarkersOutOfOrder  = "out_of_order"
)

var (
	markerRE = regexp.MustCompile(`(?i)\b(start|end)_sub_instruction_(\d+)\b`)
	// Headings a model writes when it ignores the markers: SUB_INSTRUCTION_3:,
	// "Sub-instruction 3", "**Sub instruction 3.**", "## Subinstruction 3",
	// and the Chinese 子指令3 / 子任务3.
	headingRE = regexp.MustCompile(`(?im)^[ \t>#*_\[(]*(?:sub[ _-]?instruction[ _-]*|子指令\s*|子任务\s*)(\d+)\b[*_\])]*[ \t]*[:：.)\-–—]?[*_]*`)
	// Numbered sections ("3.", "3)", "### 3.", "**3.**") are the last resort.
	numberRE = regexp.MustCompile(`(?m)^([ \t]*)(#+[ \t]*|\*\*)?(\d+)[.)](\*\*)?(?:[ \t]|$)`)
)

// decoration is what models put around a marker or heading on its line.
const decoration = " \t*#<>[]`:：_=|/"

// SplitAnswers cuts a reply into the answers to n sub-instructions (index
// 0 is sub-instruction 1). It uses the start/end markers when the reply has
// any, else headings naming the sub-instructions, else numbered sections.
// A sub-instruction whose answer is absent or empty is not Found.
func SplitAnswers(reply string, n int) []Answer {
	if ans := byMarkers(reply, n); ans != nil {
		return ans
	}
	if ans := byHeadings(reply, n, headingRE.FindAllStringSubmatchIndex(reply, -1), 1, viaHeading); ans != nil {
		return ans
	}
	return byNumbers(reply, n)
}

type marker struct {
	start, end int // byte span of the marker
	open       bool
	k          int
}

func byMarkers(reply string, n int) []Answer {
	var ms []marker
	for _, m := range markerRE.FindAllStringSubmatchIndex(reply, -1) {
		k, _ := strconv.Atoi(reply[m[4]:m[5]])
		ms = append(ms, marker{m[0], m[1], strings.EqualFold(reply[m[2]:m[3]], "start"), k})
	}
	if len(ms) == 0 {
		return nil
	}
	shift := zeroBased(len(ms), func(i int) int { return ms[i].k }, n)
	out := make([]Answer, n)
	if why := markerTrouble(ms, shift, n); why != "" {
		for i := range out {
			out[i].Markers = why
		}
		return out
	}
	for k := 1; k <= n; k++ {
		want := k - shift
		from, to := -1, len(reply)
		for i, m := range ms {
			if from < 0 && m.open && m.k == want {
				from = i
				continue
			}
			if from >= 0 {
				// The answer ends at its own end marker, or at the next start
				// marker when the model forgot to close it.
				if m.open || m.k == want {
					to = m.start
					break
				}
			}
		}
		var text string
		switch {
		case from >= 0:
			text = cut(reply, ms[from].end, to)
		default:
			// Only an end marker: the answer runs from the previous marker.
			for i, m := range ms {
				if !m.open && m.k == want {
					begin := 0
					if i > 0 {
						begin = ms[i-1].end
					}
					text = cut(reply, begin, m.start)
					break
				}
			}
		}
		if text != "" {
			out[k-1] = Answer{Text: text, Found: true, Via: viaMarkers}
		}
	}
	return out
}

// markerTrouble says why the start markers, or the end markers, cannot be
// trusted: a number outside 1..n, a number twice, or numbers out of order.
func markerTrouble(ms []marker, shift, n int) string {
	for _, open := range []bool{true, false} {
		last := 0
		for _, m := range ms {
			if m.open != open {
				continue
			}
			switch k := m.k + shift; {
			case k < 1 || k > n:
				return MarkersMisnumbered
			case k == last:
				return MarkersDuplicated
			case k < last:
				return MarkersOutOfOrder
			default:
				last = k
			}
		}
	}
	return ""
}

// zeroBased reports 1 when the numbers look 0-based (the official keys are
// sub_instruction_0 …): a 0 appears and n does not.
func zeroBased(count int, num func(int) int, n int) int {
	zero, top := false, false
	for i := 0; i < count; i++ {
		zero = zero || num(i) == 0
		top = top || num(i) == n
	}
	if zero && !top {
		return 1
	}
	return 0
}

// cut returns reply[from:to] without what models put around a marker on
// its line ("**", "<", ":"), trimmed.
func cut(reply string, from, to int) string {
	s := reply[from:to]
	first, rest, multi := strings.Cut(s, "\n")
	if first = strings.TrimLeft(first, decoration); first == "" && multi {
		s = rest
	} else if multi {
		s = first + "\n" + rest
	} else {
		s = first
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		if last := strings.TrimRight(s[i+1:], decoration); last == "" {
			s = s[:i]
		} else {
			s = s[:i+1] + last
		}
	} else {
		s = strings.TrimRight(s, decoration)
	}
	return strings.TrimSpace(s)
}

// byHeadings cuts at headings (match index pairs whose group 1 is the
// number): each sub-instruction's first heading after the previous one's
// starts its answer, which runs to the next heading used.
func byHeadings(reply string, n int, hs [][]int, group int, via string) []Answer {
	if len(hs) == 0 {
		return nil
	}
	num := func(i int) int {
		k, _ := strconv.Atoi(reply[hs[i][2*group]:hs[i][2*group+1]])
		return k
	}
	shift := zeroBased(len(hs), num, n)
	type pick struct{ k, i int }
	var picks []pick
	next := 0
	for k := 1; k <= n; k++ {
		for i := next; i < len(hs); i++ {
			if num(i)+shift == k {
				picks = append(picks, pick{k, i})
				next = i + 1
				break
			}
		}
	}
	if len(picks) == 0 {
		return nil
	}
	out := make([]Answer, n)
	for p, pk := range picks {
		to := len(reply)
		if p+1 < len(picks) {
			to = hs[picks[p+1].i][0]
		}
		if text := cut(reply, hs[pk.i][1], to); text != "" {
			out[pk.k-1] = Answer{Text: text, Found: true, Via: via}
		}
	}
	return out
}

// byNumbers treats numbered lines as section starts. Lines styled as
// headings (# or bold) win over plain ones, and among plain ones the least
// indented, so the numbered lists inside an answer are not taken for
// sections.
func byNumbers(reply string, n int) []Answer {
	all := numberRE.FindAllStringSubmatchIndex(reply, -1)
	if len(all) == 0 {
		return make([]Answer, n)
	}
	styled := all[:0:0]
	for _, m := range all {
		if m[4] >= 0 {
			styled = append(styled, m)
		}
	}
	hs := styled
	if len(hs) == 0 {
		minIndent := -1
		for _, m := range all {
			if w := m[3] - m[2]; minIndent < 0 || w < minIndent {
				minIndent = w
			}
		}
		for _, m := range all {
			if m[3]-m[2] == minIndent {
				hs = append(hs, m)
			}
		}
	}
	sort.Slice(hs, func(a, b int) bool { return hs[a][0] < hs[b][0] })
	if ans := byHeadings(reply, n, hs, 3, viaNumber); ans != nil {
		return ans
	}
	return make([]Answer, n)
}

// segment is the child's "segment": the answer the judge checks, or, when
// none was found, the whole reply for the judge to search.
type segment struct {
	Found   bool   `json:"found"`
	Via     string `json:"via,omitempty"`
	Text    string `json:"text"`
	Reply   string `json:"reply,omitempty"`
	Markers string `json:"markers,omitempty"` // why the markers were not trusted (Markers*)
}

// childGold is everything the judge of one constraint needs.
type childGold struct {
	Subset          string `json:"subset"`
	Input           string `json:"input"`
	Key             string `json:"key"`
	Sub             int    `json:"sub"` // 1-based, as in the prompt
	Subs            int    `json:"subs"`
	Instruction     string `json:"instruction"`
	Constraint      string `json:"constraint"`
	ConstraintIndex int    `json:"constraint_index"` // 1-based
	SubConstraints  int    `json:"sub_constraints"`  // constraints of this sub-instruction
	Constraints     int    `json:"constraints"`      // constraints of the task
}

// Split is the split-subtasks splitter for eifbench: one child per
// sub-instruction × constraint, with that sub-instruction's answer. A record
// that failed inference still yields its children, each carrying the error,
// so every constraint is counted.
func Split(rec *record.Record, emit func(*record.Record) error) error {
	var g itemGold
	if err := rec.Decode("gold", &g); err != nil {
		return app.Invalid(err)
	}
	if len(g.Subs) == 0 {
		return app.Invalidf("gold.sub_instructions is empty: not an EifBench request from expand-templates")
	}
	if g.Input == "" {
		var c itemContext
		if err := rec.Decode("context", &c); err != nil {
			return app.Invalid(err)
		}
		g.Input = c.Input
	}
	var answers []Answer
	var reply string
	if !rec.Errored() {
		var resp record.Response
		if !rec.Has("response") {
			return app.Invalidf("no response and no error: run infer-batch before split-subtasks")
		}
		if err := rec.Decode("response", &resp); err != nil {
			return app.Invalid(err)
		}
		reply = resp.Text
		answers = SplitAnswers(reply, len(g.Subs))
	}
	var group map[string]string
	if err := rec.Decode("group", &group); err != nil {
		return app.Invalid(err)
	}
	total := countConstraints(g.Subs)
	for i, s := range g.Subs {
		for j, c := range s.Constraints {
			child := rec.Clone()
			child.SetID(split.ChildID(rec.ID(), fmt.Sprintf("%d.%d", i+1, j+1)))
			child.Set("parent", rec.ID())
			// The children carry their own answer and gold; the prompt and the
			// whole reply would repeat the parent's bulk in every child
			// (split.Run gives them the response without its text).
			child.Delete("request")
			child.Delete("response")
			child.Delete("context")
			gr := map[string]string{}
			for k, v := range group {
				gr[k] = v
			}
			gr["sub_constraints"] = strconv.Itoa(len(s.Constraints))
			child.Set("group", gr)
			child.Set("gold", childGold{
				Subset: g.Subset, Input: g.Input, Key: s.Key, Sub: i + 1, Subs: len(g.Subs),
				Instruction: s.Instruction, Constraint: c, ConstraintIndex: j + 1,
				SubConstraints: len(s.Constraints), Constraints: total,
			})
			if answers != nil {
				a := answers[i]
				seg := segment{Found: a.Found, Via: a.Via, Text: a.Text, Markers: a.Markers}
				if !a.Found {
					seg.Reply = reply
				}
				child.Set("segment", seg)
			}
			if err := emit(child); err != nil {
				return err
			}
		}
	}
	return nil
}
