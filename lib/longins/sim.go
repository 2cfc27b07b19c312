package longins

import (
	"strconv"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/sim"
)

// Solver grades LongIns exams in llm-sim. Questions of the embedded
// checkable tasks are graded by recomputing their answer (Checkers), so at
// skill 1 the reply names exactly the wrong ones (F1 = 1). Below skill 1, a
// wrong answer at relative position x in the exam is found with probability
// skill·(1 − (1 − skill)·x), so deep ones are missed more often, as the
// paper's depth maps show, and each right answer is named by mistake with
// probability (1 − skill)/20. Questions of tasks it cannot check (official
// or other task sources) are never named: such exams score 0.
type Solver struct{}

// Name implements sim.Solver.
func (Solver) Name() string { return Bench }

var checkerByDefinition = sync.OnceValue(func() map[string]func(string) (string, bool) {
	m := map[string]func(string) (string, bool){}
	for _, t := range DefaultTasks() {
		if c, ok := Checkers[t.Name]; ok {
			m[t.Definition] = c
		}
	}
	return m
})

// SimQuestion is one question read back from a prompt.
type SimQuestion struct {
	ID                        int
	Instruction, Input, Given string
}

// ParsePrompt reads the questions back from a Prompt.
func ParsePrompt(text string) ([]SimQuestion, bool) {
	start := strings.Index(text, Opening+"\n")
	if start < 0 {
		return nil, false
	}
	end := pystr.LastIndex(text, "\n\n"+Closing)
	if end < start {
		return nil, false
	}
	body := text[start+len(Opening)+1 : end]
	global := ""
	if rest, ok := strings.CutPrefix(body, gistTaskLine+"\n"); ok {
		task, data, ok := strings.Cut(rest, "\n"+gistFindLine+"\n")
		if !ok {
			return nil, false
		}
		global, body = task, data
	} else if data, ok := strings.CutPrefix(body, localLine+"\n"); ok {
		body = data
	} else {
		return nil, false
	}
	var qs []SimQuestion
	for _, item := range strings.Split(body, "\n\n") {
		idText, rest, ok := strings.Cut(strings.TrimPrefix(item, "["), ":")
		id, err := strconv.Atoi(idText)
		if !ok || err != nil || !strings.HasPrefix(item, "[") || !strings.HasSuffix(rest, "]") {
			continue
		}
		rest = strings.TrimSuffix(rest, "]")
		q := SimQuestion{ID: id, Instruction: global}
		if global == "" {
			instr, r, ok := strings.Cut(strings.TrimPrefix(rest, "Instruction: "), " Question: ")
			if !ok {
				continue
			}
			q.Instruction, rest = instr, r
		}
		i := pystr.LastIndex(rest, " Answer: ")
		if i < 0 {
			continue
		}
		q.Input, q.Given = rest[:i], rest[i+len(" Answer: "):]
		qs = append(qs, q)
	}
	return qs, len(qs) > 0
}

// Solve implements sim.Solver.
func (Solver) Solve(req *sim.Request, p sim.Params) (string, bool) {
	qs, ok := ParsePrompt(req.Text())
	if !ok {
		return "", false
	}
	checkers := checkerByDefinition()
	var named []string
	for i, q := range qs {
		check, known := checkers[q.Instruction]
		if !known {
			continue
		}
		right, ok := check(q.Input)
		wrong := ok && right != q.Given
		x := float64(i) / float64(len(qs))
		var name bool
		if wrong {
			name = p.Rand.Float64() < p.Skill*(1-(1-p.Skill)*x)
		} else {
			name = p.Rand.Float64() < (1-p.Skill)/20
		}
		if name {
			named = append(named, strconv.Itoa(q.ID))
		}
	}
	return "[" + strings.Join(named, ", ") + "]", true
}

// Think implements sim.Thinker: the model goes through the questions,
// naming every ID as a candidate. Scored, the trace would name every
// question wrong.
func (Solver) Think(req *sim.Request, _ sim.Params) string {
	qs, _ := ParsePrompt(req.Text())
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = strconv.Itoa(q.ID)
	}
	return "Candidates to check: [" + strings.Join(ids, ", ") + "]. Let me go through each."
}
