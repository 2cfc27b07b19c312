package longgenbench

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
)

// Judge prompt variants (--judge-prompt).
const (
	Prompt3Shot    = "3shot"    // three worked examples first (the upstream 2025 judge's structure); the default
	PromptZeroShot = "zeroshot" // the context and the question only (the 2024 judge's structure)
)

// Judge call settings: temperature 0 (the official judge sampled at 0.95,
// which makes verdicts irreproducible) and the official 50-token budget.
const (
	judgeTemperature = 0.0
	judgeMaxTokens   = 50
)

// The question closes every judge prompt; the simulator reads it back.
const (
	questionLead = "Question: Does this context include \""
	questionTail = "\"? Answer with 'yes' or 'no' only."
)

// judgeExamples are the three worked examples of the 3-shot prompt (two
// yes, one no), written for ifkit.
const judgeExamples = `You check whether one entry of a long generated document includes a required event. Read the context, then answer the question with 'yes' or 'no' only.

Example 1
Context: Floor 12: The whole floor is a veterinary clinic, with four examination rooms, an X-ray suite and a waiting area with separate corners for cats and dogs.
Question: Does this context include "veterinary clinic"? Answer with 'yes' or 'no' only.
Answer: yes

Example 2
Context: Week 9 (February 26th - March 4th): Snow again on Monday. On Saturday we drove to the coast for Grandpa's eightieth birthday and he blew out every candle in one go.
Question: Does this context include "my grandfather's birthday"? Answer with 'yes' or 'no' only.
Answer: yes

Example 3
Context: Block 40 (9, 3): A quiet residential block of terraced houses around a shared courtyard, with a corner bakery and a small playground.
Question: Does this context include "public swimming pool"? Answer with 'yes' or 'no' only.
Answer: no

Now the entry to judge.
`

// JudgePrompt is the judge's user message for one check.
func JudgePrompt(variant, event, entry string) string {
	var b strings.Builder
	if variant != PromptZeroShot {
		b.WriteString(judgeExamples)
	}
	b.WriteString("Context: " + entry + "\n")
	b.WriteString(questionLead + event + questionTail + "\nAnswer:")
	return b.String()
}

type scorer struct {
	mode, prompt string
	verdict      judge.YesNo
}

// NewScorer is the judge factory: an LLM judge per check, or with --judge
// lexical a deterministic offline approximation, labelled in every record.
func NewScorer(opt judge.Options) (judge.Scorer, error) {
	s := scorer{mode: opt.Mode, prompt: opt.Prompt, verdict: judge.YesNo{Strict: opt.StrictVerdict}}
	if s.mode == "" {
		s.mode = judge.ModeLLM
	}
	if s.prompt == "" || s.prompt == "default" {
		s.prompt = Prompt3Shot
	}
	if s.mode != judge.ModeLLM && s.mode != judge.ModeLexical {
		return nil, app.Usagef("longgenbench: --judge %q: want llm or lexical", opt.Mode)
	}
	if s.prompt != Prompt3Shot && s.prompt != PromptZeroShot {
		return nil, app.Usagef("longgenbench: --judge-prompt %q: want %s or %s", opt.Prompt, Prompt3Shot, PromptZeroShot)
	}
	return s, nil
}

func (s scorer) rubric() string {
	if s.mode == judge.ModeLexical {
		return "longgenbench-lexical-v1"
	}
	return "longgenbench-llm-" + s.prompt + "-v1"
}

func (s scorer) judgement(g CheckGold, verdict string, detail map[string]any) *record.Judgement {
	j := &record.Judgement{Verdict: verdict, Rubric: s.rubric(), Detail: map[string]any{"mode": s.mode, "check": g.Check, "entry": g.Entry}}
	if verdict == judge.VerdictYes {
		j.Score = 1
	}
	for k, v := range detail {
		j.Detail[k] = v
	}
	return j
}

func readCheck(rec *record.Record) (CheckGold, Entry, error) {
	var g CheckGold
	var e Entry
	if !rec.Has("parent") || !rec.Has("entry") {
		return g, e, app.Invalidf("longgenbench records are judged per check: run split-subtasks before judge")
	}
	if err := rec.Decode("gold", &g); err != nil {
		return g, e, app.Invalid(err)
	}
	if err := rec.Decode("entry", &e); err != nil {
		return g, e, app.Invalid(err)
	}
	if g.Event == "" || g.Check == "" {
		return g, e, app.Invalidf("gold needs check and event")
	}
	return g, e, nil
}

// Prepare decides a missing entry (verdict missing, no call) and, in
// lexical mode, every check; otherwise it builds the judge call.
func (s scorer) Prepare(rec *record.Record) (judge.Decision, error) {
	g, e, err := readCheck(rec)
	if err != nil {
		return judge.Decision{}, err
	}
	if !e.Found {
		return judge.Decision{Judgement: s.judgement(g, judge.VerdictMissing, nil)}, nil
	}
	if s.mode == judge.ModeLexical {
		ok, found, missing := LexicalMatch(g.Event, e.Text)
		v := judge.VerdictNo
		if ok {
			v = judge.VerdictYes
		}
		return judge.Decision{Judgement: s.judgement(g, v, map[string]any{"matched": found, "unmatched": missing})}, nil
	}
	body, err := judge.ChatCall(JudgePrompt(s.prompt, g.Event, e.Text), judgeMaxTokens, judgeTemperature)
	return judge.Decision{Call: body}, err
}

// Parse reads the judge's reply.
func (s scorer) Parse(rec *record.Record, reply string) (*record.Judgement, error) {
	g, _, err := readCheck(rec)
	if err != nil {
		return nil, err
	}
	v, err := s.verdict.Parse(reply)
	if err != nil {
		return nil, err
	}
	return s.judgement(g, v, map[string]any{"prompt": s.prompt}), nil
}

// stopwords carry no content of an event description.
var stopwords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "our": true,
	"your": true, "his": true, "her": true, "their": true, "its": true, "this": true, "that": true,
	"featuring": true, "use": true, "at": true, "of": true, "on": true, "in": true, "to": true, "my": true,
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// stem folds simple English plurals so "tacos" matches "taco" and
// "birthdays" matches "birthday".
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// ContentWords are the words of an event a lexical judge looks for: lower
// case, stemmed, without stopwords and words shorter than three letters.
func ContentWords(event string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(event) {
		if len([]rune(w)) < 3 || stopwords[w] {
			continue
		}
		if w = stem(w); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// LexicalMatch is the offline judge: the entry includes the event when every
// content word of the event occurs in it (case-insensitive, plurals folded).
// It is an approximation: it misses paraphrases and accepts a mention that
// negates the event.
func LexicalMatch(event, text string) (ok bool, found, missing []string) {
	have := map[string]bool{}
	for _, w := range words(text) {
		have[stem(w)] = true
	}
	found, missing = []string{}, []string{}
	for _, w := range ContentWords(event) {
		if have[w] {
			found = append(found, w)
		} else {
			missing = append(missing, w)
		}
	}
	return len(missing) == 0 && len(found) > 0, found, missing
}

// Label is how reports name a judge mode.
func Label(mode, model string) string {
	if mode == judge.ModeLexical {
		return "lexical (offline approximation, no judge model)"
	}
	if model == "" {
		return "llm"
	}
	return fmt.Sprintf("llm (%s)", model)
}
