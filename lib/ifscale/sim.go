package ifscale

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/sim"
)

// Solver answers IFScale prompts in llm-sim: a short report that includes
// each keyword with a probability that falls with the number of keywords.
//
// The decay shape is the knob: a served model whose name contains
// "threshold", "linear" or "exponential" follows that curve of the paper
// (linear when the name says none). With skill s and N keywords, keyword i
// (of N, from 0) is included with probability
//
//	1 − (1 − s) · g(N/500) · (0.6 + 0.8·i/(N−1))
//
// where g is the shape: threshold g(x) = max(0, (x−0.3)/0.7), linear
// g(x) = x, exponential g(x) = 1 − e^(−x/0.08). The last factor (mean 1)
// drops later instructions more often, the primacy effect the paper reports.
// A keyword left out is written instead as a plural (a modification error)
// one time in four. At skill 1 every keyword is included.
type Solver struct{}

// Name implements sim.Solver.
func (Solver) Name() string { return Bench }

// Shape is the decay curve g: the share of the skill deficit lost at
// x = N/500 instructions.
func Shape(model string, x float64) float64 {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "threshold"):
		return max(0, (x-0.3)/0.7)
	case strings.Contains(m, "exponential"):
		return 1 - math.Exp(-x/0.08)
	default:
		return min(1, x)
	}
}

// ParseKeywords reads the keywords back from a prompt made by Prompt.
func ParseKeywords(text string) ([]string, bool) {
	i := pystr.LastIndex(text, "\n"+ConstraintsHeader+"\n")
	if i < 0 {
		return nil, false
	}
	var kws []string
	for _, line := range strings.Split(text[i+len(ConstraintsHeader)+2:], "\n") {
		num, rest, ok := strings.Cut(line, ". Include the exact word: '")
		if !ok || !strings.HasSuffix(rest, "'.") {
			continue
		}
		if n, err := strconv.Atoi(num); err != nil || n != len(kws)+1 {
			continue
		}
		kws = append(kws, strings.TrimSuffix(rest, "'."))
	}
	return kws, len(kws) > 0
}

// simIntro and the section wording use only words that are not (and do not
// start with the stem of) any keyword of the embedded or the official
// vocabulary, so that a keyword left out is really absent (tested).
const simIntro = "This business report notes the findings of the overview here, and we also cover each part with the closing notes of this report."

// Solve implements sim.Solver.
func (Solver) Solve(req *sim.Request, p sim.Params) (string, bool) {
	kws, ok := ParseKeywords(req.Text())
	if !ok {
		return "", false
	}
	n := len(kws)
	deficit := (1 - p.Skill) * Shape(req.Model, float64(n)/500)
	var used []string
	for i, kw := range kws {
		w := 1.0
		if n > 1 {
			w = 0.6 + 0.8*float64(i)/float64(n-1)
		}
		switch r := p.Rand.Float64(); {
		case r >= deficit*w:
			used = append(used, kw)
		case p.Rand.Float64() < 0.25:
			used = append(used, kw+"s")
		}
	}
	return simReport(used), true
}

// Think implements sim.Thinker: the model plans its report by listing
// every keyword, and the plurals it might use instead. Scored, the trace
// would make every keyword present, those the report left out too.
func (Solver) Think(req *sim.Request, _ sim.Params) string {
	kws, _ := ParseKeywords(req.Text())
	plurals := make([]string, len(kws))
	for i, kw := range kws {
		plurals[i] = kw + "s"
	}
	return "I must use each of these words: " + strings.Join(kws, ", ") + ". Maybe plurals instead: " + strings.Join(plurals, ", ") + "."
}

// simReport writes the words into a short report, five to a part.
func simReport(used []string) string {
	var sb strings.Builder
	sb.WriteString("<report>\nBusiness report\n\n" + simIntro + "\n")
	for part := 0; part*5 < len(used); part++ {
		words := used[part*5 : min(len(used), part*5+5)]
		list := strings.Join(words, ", ")
		if len(words) > 1 {
			list = strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
		}
		fmt.Fprintf(&sb, "\nPart %d. This part notes %s.\n", part+1, list)
	}
	sb.WriteString("\nClosing. The closing part of this report ends here.\n</report>")
	return sb.String()
}
