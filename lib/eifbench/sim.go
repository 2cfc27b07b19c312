package eifbench

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/sim"
)

// The simulated model makes its compliance observable: under each answer it
// writes one line per constraint it meets, carrying a tag derived from the
// constraint's text, and the simulated judge says yes exactly when the
// answer it is shown carries the tag of the constraint it is asked about.
// So the judge is exact and the skill of the answering model alone sets the
// scores: at skill 1 every constraint is met (CLA = ILA = 1).

// tag is the evidence line the sim writes for a met constraint.
func tag(constraint string) string {
	h := fnv.New64a()
	h.Write([]byte(oneLine(constraint)))
	return fmt.Sprintf("[meets constraint %016x]", h.Sum64())
}

// AnswerSolver answers EifBench prompts.
type AnswerSolver struct{}

// Name implements sim.Solver.
func (AnswerSolver) Name() string { return "eifbench" }

var (
	subLineRE        = regexp.MustCompile(`^` + regexp.QuoteMeta(subLinePrefix) + `(\d+): (.*)$`)
	constraintLineRE = regexp.MustCompile(`^  \d+\. (.*)$`)
)

type simSub struct {
	instruction string
	constraints []string
}

// parsePrompt reads the sub-instructions back from a Prompt.
func parsePrompt(text string) ([]simSub, bool) {
	i := pystr.LastIndex(text, "\n"+subsHeading+" (")
	if i < 0 || !strings.Contains(text, StartMarker(1)) {
		return nil, false
	}
	var subs []simSub
	for _, line := range strings.Split(text[i+1:], "\n") {
		if m := subLineRE.FindStringSubmatch(line); m != nil {
			subs = append(subs, simSub{instruction: m[2]})
		} else if m := constraintLineRE.FindStringSubmatch(line); m != nil && len(subs) > 0 {
			subs[len(subs)-1].constraints = append(subs[len(subs)-1].constraints, m[1])
		}
	}
	return subs, len(subs) > 0
}

// Solve writes one marked answer per sub-instruction. Below skill 1 a
// constraint is met with probability skill, and an answer is now and then
// left out or written under a heading instead of the markers.
func (AnswerSolver) Solve(req *sim.Request, p sim.Params) (string, bool) {
	subs, ok := parsePrompt(req.Text())
	if !ok {
		return "", false
	}
	slip := (1 - p.Skill) / 4
	var b strings.Builder
	for i, s := range subs {
		k := i + 1
		if p.Rand.Float64() < slip {
			continue // this sub-instruction goes unanswered
		}
		headed := p.Rand.Float64() < slip
		if headed {
			fmt.Fprintf(&b, "Sub-instruction %d:\n", k)
		} else {
			b.WriteString(StartMarker(k) + "\n")
		}
		fmt.Fprintf(&b, "Here is the answer to sub-instruction %d (%s).\n", k, s.instruction)
		for _, c := range s.constraints {
			if p.Rand.Float64() < p.Skill {
				b.WriteString(tag(c) + "\n")
			}
		}
		if !headed {
			b.WriteString(EndMarker(k) + "\n")
		}
	}
	return b.String(), true
}

// Think implements sim.Thinker: the model sketches every answer between
// its markers, with the evidence of every constraint. Scored, the sketch
// would be taken for the answers, each meeting every constraint.
func (AnswerSolver) Think(req *sim.Request, _ sim.Params) string {
	subs, _ := parsePrompt(req.Text())
	var b strings.Builder
	b.WriteString("Sketch:\n")
	for i, s := range subs {
		b.WriteString(StartMarker(i+1) + "\n")
		for _, c := range s.constraints {
			b.WriteString(tag(c) + "\n")
		}
		b.WriteString(EndMarker(i+1) + "\n")
	}
	return b.String()
}

// JudgeSolver answers the eifbench judge prompt by looking for the tag.
type JudgeSolver struct{}

// Name implements sim.Solver.
func (JudgeSolver) Name() string { return "eifbench-judge" }

// Solve answers yes when the graded text carries the constraint's tag.
func (JudgeSolver) Solve(req *sim.Request, _ sim.Params) (string, bool) {
	text := req.Text()
	lang := ""
	for l, tx := range judgeTexts {
		if strings.HasPrefix(text, tx.head) {
			lang = l
		}
	}
	if lang == "" {
		return "", false
	}
	ci := pystr.LastIndex(text, "\n"+secConstraint+"\n")
	if ci < 0 {
		return "", false
	}
	constraint, _, ok := strings.Cut(text[ci+len(secConstraint)+2:], "\n"+secEnd)
	if !ok {
		return "", false
	}
	graded := text[:ci]
	if ai := strings.Index(graded, "\n"+secAnswer+"\n"); ai >= 0 {
		graded = graded[ai:]
	} else if ri := strings.Index(graded, "\n"+secReply+"\n"); ri >= 0 {
		graded = graded[ri:]
	} else {
		return "", false
	}
	met := strings.Contains(graded, tag(constraint))
	switch {
	case lang == "zh" && met:
		return "分析：回答表明这条约束已满足。\n答案：是", true
	case lang == "zh":
		return "分析：回答中看不出这条约束已满足。\n答案：否", true
	case met:
		return "Analysis: the answer shows that this constraint is met.\nAnswer: yes", true
	}
	return "Analysis: nothing in the answer shows that this constraint is met.\nAnswer: no", true
}
