package lifbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
)

// Rubric names written to judgement.rubric.
const (
	RubricOfficial = "lifbench-official/1"
	RubricStrict   = "lifbench-strict/1"
)

// Scorer is the LIFEval rubric. The official rubric reproduces the official
// scorer (evaluation/EvaluateFunc.py) rule by rule, quirks included; strict
// fixes its known bugs: the repeat "ori" point that is always awarded, the
// extract "order" point that is always full, the repeat format check that
// looks at the whole reply instead of the line, and the early returns of the
// list scorers that leave the total at 0 although points were earned.
type Scorer struct {
	strict bool
}

// NewScorer is the scorer of a rubric (--rubric official|strict).
func NewScorer(rubric string) (judge.Scorer, error) {
	switch rubric {
	case "", "official":
		return &Scorer{}, nil
	case "strict":
		return &Scorer{strict: true}, nil
	}
	return nil, app.Usagef("--rubric %q: want official or strict", rubric)
}

// Parse is never called: LIFEval needs no judge model.
func (s *Scorer) Parse(rec *record.Record, _ string) (*record.Judgement, error) {
	return nil, fmt.Errorf("record %q: LIFBench is scored by its rubric, not by a judge model", rec.ID())
}

// Prepare scores one record.
func (s *Scorer) Prepare(rec *record.Record) (judge.Decision, error) {
	name := rec.String("task")
	task, ok := TaskByName(name)
	if !ok {
		return judge.Decision{}, app.Invalidf("unknown lifbench task %q", name)
	}
	var g Gold
	if !rec.Has("gold") {
		return judge.Decision{}, app.Invalidf("no \"gold\" (records come from expand-templates)")
	}
	if err := rec.Decode("gold", &g); err != nil {
		return judge.Decision{}, app.Invalidf("gold: %v", err)
	}
	var resp record.Response
	if !rec.Has("response") {
		return judge.Decision{}, app.Invalidf("no \"response\" and no \"error\" (run infer-batch first)")
	}
	if err := rec.Decode("response", &resp); err != nil {
		return judge.Decision{}, app.Invalidf("response: %v", err)
	}
	// Only the list and find_dup rubrics read the context from the prompt;
	// the others skip decoding it.
	var prompt string
	if task.Scenario == List || task.Name == "find_dup_text" {
		var err error
		if prompt, err = promptOf(rec); err != nil {
			return judge.Decision{}, app.Invalidf("%v", err)
		}
	}
	j, err := Score(task, prompt, resp.Text, &g, s.strict)
	if err != nil {
		return judge.Decision{}, app.Invalidf("%v", err)
	}
	return judge.Decision{Judgement: j}, nil
}

// promptOf is the text sent: the last user message, or the completions prompt.
func promptOf(rec *record.Record) (string, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Prompt *string `json:"prompt"`
	}
	if !rec.Has("request") {
		return "", fmt.Errorf("no \"request\": the list and multidoc rubrics read the context from the prompt")
	}
	if err := rec.Decode("request", &req); err != nil {
		return "", fmt.Errorf("request: %v", err)
	}
	if req.Prompt != nil {
		return *req.Prompt, nil
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		if s, ok := unquote(m.Content); ok {
			return s, nil
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := record.Unmarshal(m.Content, &parts); err != nil {
			return "", fmt.Errorf("request: user message content: %v", err)
		}
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", fmt.Errorf("request has no user message")
}

// points accumulates raw scores in the task's point order.
type points map[string]float64

// Score applies the task's rubric to a reply.
func Score(task *Task, prompt, output string, g *Gold, strict bool) (*record.Judgement, error) {
	var (
		p     points
		early bool // the official scorer returned before computing its total
		err   error
	)
	c := &scoring{prompt: prompt, out: output, g: g, strict: strict}
	switch task.Name {
	case "single_query_id", "offset_query_id", "offset_query_element":
		p, early, err = c.labelEqual()
	case "multi_query_id":
		p, err = c.multi()
	case "blur_offset_query_id", "blur_offset_query_element":
		p, early, err = c.blur()
	case "repeat":
		p, err = c.repeat()
	case "extract":
		p, early, err = c.extract()
	case "qa":
		p, err = c.qa()
	case "batch_label":
		p, err = c.batchLabel()
	case "find_dup_text":
		p, err = c.findDup()
	default:
		err = fmt.Errorf("no rubric for task %q", task.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", task.Name, err)
	}
	j := &record.Judgement{Rubric: RubricOfficial}
	if strict {
		j.Rubric = RubricStrict
	}
	var sum float64
	for _, ps := range task.Points {
		v := p[ps.Name]
		sum += v
		j.Points = append(j.Points, record.Point{Name: ps.Name, Score: v / ps.Max, Max: ps.Max, Capabilities: ps.Capabilities})
	}
	switch {
	case task.Name == "extract" && early:
		j.Score = 1 // the "[]" answer for a type with no sentences
		for i := range j.Points {
			j.Points[i].Score = 1
		}
	case early && !strict:
		j.Score = 0
	default:
		j.Score = sum / task.Total()
	}
	return j, nil
}

type scoring struct {
	prompt, out string
	g           *Gold
	strict      bool
}

// unicodeEscape is the official llm_output.encode('utf-8').decode(
// 'unicode_escape') that multi_query_id, extract and find_dup_text apply
// before matching: it turns non-ASCII text into Latin-1 mojibake, so a
// correct answer in another script is not found. Strict mode decodes the
// escapes and keeps the text.
func (c *scoring) unicodeEscape(s string) (string, error) {
	if c.strict {
		return unescapeText(s)
	}
	return unicodeEscape(s)
}

// py is the Python the rubric reads replies with: the official scorer's
// (3.10.7 or later), or plain literals for strict.
func (c *scoring) py() pyRules {
	if c.strict {
		return pyLiteral
	}
	return pyOfficial
}

func (c *scoring) k() (int, error) {
	var k int
	if err := json.Unmarshal(c.g.Label, &k); err != nil {
		return 0, fmt.Errorf("gold label: want the number of items shown: %v", err)
	}
	return k, nil
}

func (c *scoring) label() (Label, error) {
	var l Label
	if err := json.Unmarshal(c.g.Label, &l); err != nil {
		return nil, fmt.Errorf("gold label: want the key sentences by type: %v", err)
	}
	return l, nil
}

// inputText is the official get_input_text: the part of the prompt after
// the last start marker, cut at the first end marker, stripped.
func inputText(prompt, start, end string) (string, error) {
	i, j := inputSpan(prompt, start, end)
	if i == j {
		return "", fmt.Errorf("no context between the markers %q and %q in the prompt", start, end)
	}
	return pystr.Strip(prompt[i:j]), nil
}

// inputSpan is where the context lies in the prompt: after the last start
// marker, up to the first end marker after it.
func inputSpan(prompt, start, end string) (i, j int) {
	if start != "" {
		// The text after the last start marker, found scanning forward
		// (strings.LastIndex is bytewise and slow on long prompts).
		for k := strings.Index(prompt[i:], start); k >= 0; k = strings.Index(prompt[i:], start) {
			i += k + len(start)
		}
	}
	j = len(prompt)
	if end != "" {
		if k := strings.Index(prompt[i:], end); k >= 0 {
			j = i + k
		}
	}
	return i, j
}
