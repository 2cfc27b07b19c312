package longgenbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/sim"
)

// WriterSolver writes the long document a LongGenBench prompt asks for, in
// its entry format, for llm-sim. Entry n includes each event required there
// with probability skill^(1 + n/number), so adherence decays along the
// output unless the skill is 1; each entry is skipped with probability
// (1 − skill)/10; and the output stops early, somewhere after the first
// quarter, with probability StopRate (default (1 − skill)/2). At skill 1
// every entry is written and every event is in place. Entries are short
// (about 30 words): the point is the structure, not the prose.
type WriterSolver struct {
	StopRate float64 // probability of stopping early; 0: (1 − skill)/2
}

// Name implements sim.Solver.
func (WriterSolver) Name() string { return "longgenbench" }

var (
	labelRE  = regexp.MustCompile(`^([A-Z][a-z]+(?: [A-Z][a-z]+)?) 1\b`)
	numberRE = regexp.MustCompile(`(?:Write all|consists of) (\d+) entries`)
)

// parseTask reads a LongGenBench prompt: the entry label and count from the
// prefix after the start marker, and the requirement lines this package
// writes, or those of the official short prompts (see parseOfficial).
func parseTask(prompt string) (scenario, []requirement, bool) {
	i := pystr.LastIndex(prompt, StartMarker)
	if i < 0 {
		return scenario{}, nil, false
	}
	prefix := strings.TrimSpace(prompt[i+len(StartMarker):])
	if !strings.HasPrefix(prefix, Separator) || strings.Contains(prefix, "\n") {
		return scenario{}, nil, false
	}
	m := labelRE.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(prefix, Separator)))
	if m == nil {
		return scenario{}, nil, false
	}
	s := scenario{label: m[1]}
	if n := numberRE.FindStringSubmatch(prompt[:i]); n != nil {
		s.number, _ = strconv.Atoi(n[1])
	}
	if s.number == 0 {
		switch {
		case s.weekly():
			s.number = 52
		case s.daily():
			s.number = 365
		default:
			return scenario{}, nil, false
		}
	}
	if s.label == "Block" {
		s.width = int(math.Round(math.Sqrt(float64(s.number))))
		if s.width*s.width != s.number {
			return scenario{}, nil, false
		}
	}
	var reqs []requirement
	if h := strings.Index(prompt[:i], requirementsHeading); h >= 0 {
		for _, line := range strings.Split(prompt[h:i], "\n") {
			if q, ok := parseLine(line, s); ok {
				reqs = append(reqs, q)
			}
		}
	} else {
		reqs = parseOfficial(prompt[:i], s)
	}
	return s, reqs, true
}

var simSentences = []string{
	"The morning light was clear and the air smelled of rain.",
	"Plans were drawn up carefully, and everyone had a say in them.",
	"A few details still need attention before the next step.",
	"The space is calm, with wide windows and warm wooden finishes.",
	"Neighbours stopped by to share their news and a pot of tea.",
	"Costs stayed within the budget agreed at the start.",
	"Quiet evenings gave time to read and to rest.",
	"Materials were chosen to last and to be easy to repair.",
	"The team met twice to review progress and settle open questions.",
	"Everything felt a little brighter by the end.",
}

// Solve implements sim.Solver for completions prompts that end with the start
// marker and a first-entry prefix.
func (w WriterSolver) Solve(req *sim.Request, p sim.Params) (string, bool) {
	s, reqs, ok := parseTask(req.Text())
	if !ok {
		return "", false
	}
	events := map[int][]string{}
	for _, q := range reqs {
		for _, e := range q.entries(s) {
			events[e] = append(events[e], q.Event)
		}
	}
	stop := s.number
	rate := w.StopRate
	if rate == 0 {
		rate = (1 - p.Skill) / 2
	}
	if p.Rand.Float64() < rate {
		stop = between(p.Rand, max(1, s.number/4), s.number-1)
	}
	var b strings.Builder
	for n := 1; n <= stop; n++ {
		if n > 1 {
			if p.Rand.Float64() < (1-p.Skill)/10 {
				continue
			}
			b.WriteString(Separator + " " + s.heading(n))
		}
		b.WriteString("\n")
		b.WriteString(simBody(p.Rand))
		keep := math.Pow(p.Skill, 1+float64(n)/float64(s.number))
		for _, ev := range events[n] {
			if p.Rand.Float64() < keep {
				fmt.Fprintf(&b, " This entry includes the %s.", ev)
			}
		}
		b.WriteString("\n\n")
	}
	if stop == s.number {
		b.WriteString(EndMarker + " ***\n")
	}
	return b.String(), true
}

// Think implements sim.Thinker: the model outlines every entry with every
// event it requires, in the entries' own format. Scored, the outline
// would be read as entries that hold every event.
func (WriterSolver) Think(req *sim.Request, _ sim.Params) string {
	s, reqs, _ := parseTask(req.Text())
	events := map[int][]string{}
	for _, q := range reqs {
		for _, e := range q.entries(s) {
			events[e] = append(events[e], q.Event)
		}
	}
	var b strings.Builder
	b.WriteString("Outline:\n")
	for n := 1; n <= s.number; n++ {
		b.WriteString(Separator + " " + s.heading(n))
		for _, ev := range events[n] {
			fmt.Fprintf(&b, " This entry includes the %s.", ev)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func simBody(rng *rand.Rand) string {
	parts := make([]string, 3)
	for i := range parts {
		parts[i] = simSentences[rng.IntN(len(simSentences))]
	}
	return strings.Join(parts, " ")
}

// JudgeSolver answers this package's judge prompt by checking the entry
// text for the event (LexicalMatch), correctly with probability skill.
type JudgeSolver struct{}

// Name implements sim.Solver.
func (JudgeSolver) Name() string { return "longgenbench-judge" }

// Solve implements sim.Solver.
func (JudgeSolver) Solve(req *sim.Request, p sim.Params) (string, bool) {
	text := req.Text()
	q := pystr.LastIndex(text, questionLead)
	if q < 0 {
		return "", false
	}
	rest := text[q+len(questionLead):]
	end := strings.Index(rest, questionTail)
	c := pystr.LastIndex(text[:q], "Context: ")
	if end < 0 || c < 0 {
		return "", false
	}
	event, context := rest[:end], strings.TrimSpace(text[c+len("Context: "):q])
	ok, _, _ := LexicalMatch(event, context)
	if p.Rand.Float64() >= p.Skill {
		ok = !ok
	}
	if ok {
		return "Yes", true
	}
	return "No", true
}
