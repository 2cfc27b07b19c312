package sim

import (
	"strings"
	"testing"
)

// planner answers every prompt "ANSWER 42" and thinks "POISON 41" first:
// what a benchmark's Thinker does, in small.
type planner struct{}

func (planner) Name() string                          { return "planner" }
func (planner) Solve(*Request, Params) (string, bool) { return "ANSWER 42, as asked.", true }
func (planner) Think(*Request, Params) string         { return "POISON 41 would be wrong." }

// llm-sim --reasoning: each mode sends the trace where the servers that
// serve thinking models send it, the solver's poison first; the answer is
// the one the model gives without a trace; max_tokens and usage count the
// trace and the answer together, so a small max_tokens cuts the trace and
// leaves no answer; --reasoning-len sets the trace's length in tokens.
func TestReasoningModes(t *testing.T) {
	_, plainURL := start(t, Options{Skill: 1, Models: []string{DefaultModel}, Solvers: []Solver{planner{}}})
	plain := decode(t, post(t, plainURL, "/chat/completions", chatBody("hello", `"max_tokens":500`)))
	answer := plain.Choices[0].Message.Content
	if answer != "ANSWER 42, as asked." {
		t.Fatalf("plain answer %q", answer)
	}
	for _, tc := range []struct {
		mode, open, close string
	}{
		{ReasoningInline, "<think>\n", "\n</think>\n\n"},
		{ReasoningHarmony, "<|channel|>analysis<|message|>", "<|end|><|start|>assistant<|channel|>final<|message|>"},
		{ReasoningField, "", ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			_, url := start(t, Options{Skill: 1, Models: []string{DefaultModel}, Solvers: []Solver{planner{}}, Reasoning: tc.mode, ReasoningLen: 40})
			c := decode(t, post(t, url, "/chat/completions", chatBody("hello", `"max_tokens":500`)))
			m := c.Choices[0].Message
			if tc.mode != ReasoningField {
				rest, ok := strings.CutPrefix(m.Content, tc.open)
				trace, _, ok2 := strings.Cut(rest, tc.close)
				if !ok || !ok2 || m.Content != tc.open+trace+tc.close+answer || m.Reasoning != "" {
					t.Fatalf("content %q, reasoning %q", m.Content, m.Reasoning)
				}
				if c.Usage.CompletionTokens != EstimateTokens(m.Content) || c.Usage.Details != nil {
					t.Errorf("usage %+v for %q", c.Usage, m.Content)
				}
				m.Reasoning = trace
			} else if m.Content != answer || c.Usage.Details == nil || c.Usage.Details.ReasoningTokens != 40 || c.Usage.CompletionTokens != EstimateTokens("<think>\n"+m.Reasoning+"\n</think>\n\n"+answer) {
				t.Fatalf("content %q, usage %+v", m.Content, c.Usage)
			}
			if !strings.HasPrefix(m.Reasoning, "POISON 41") || EstimateTokens(m.Reasoning) != 40 || c.Choices[0].FinishReason != "stop" {
				t.Errorf("trace %q (%d tokens), finish %s", m.Reasoning, EstimateTokens(m.Reasoning), c.Choices[0].FinishReason)
			}

			c = decode(t, post(t, url, "/chat/completions", chatBody("hello", `"max_tokens":10`)))
			m = c.Choices[0].Message
			if c.Choices[0].FinishReason != "length" || strings.Contains(m.Content, "ANSWER") || c.Usage.CompletionTokens != 10 {
				t.Errorf("max_tokens 10: %+v, usage %+v", c.Choices[0], c.Usage)
			}
			if tc.mode == ReasoningField && (m.Content != "" || !strings.HasPrefix(m.Reasoning, "POISON")) {
				t.Errorf("max_tokens 10: content %q, reasoning %q", m.Content, m.Reasoning)
			}

			c = decode(t, post(t, url, "/completions", `{"model":"llm-sim","prompt":"hello","max_tokens":500}`))
			text := c.Choices[0].Text
			if tc.mode == ReasoningField && text != answer || tc.mode != ReasoningField && !strings.HasPrefix(text, tc.open+"POISON") {
				t.Errorf("/v1/completions: %q", text)
			}
		})
	}
}

// A reply's usage counts the generated sequence once, as vLLM counts
// len(output.token_ids): never more than max_tokens, the trace and its tags
// included, whether the trace goes in the text or in reasoning_content.
// The trace here ends in a word and the answer starts with one, where
// counting the two parts apart used to count the seam twice.
func TestReasoningUsageCountsTheSequenceOnce(t *testing.T) {
	const trace, answer = "I weigh it and say so", "ANSWER 42, as asked."
	for _, mode := range []string{ReasoningInline, ReasoningHarmony, ReasoningField} {
		whole := markup[ReasoningInline][0] + trace + markup[ReasoningInline][1] + answer
		if mode == ReasoningHarmony {
			whole = markup[mode][0] + trace + markup[mode][1] + answer
		}
		for limit := 1; limit <= EstimateTokens(whole)+1; limit++ {
			var rep reply
			rep.think(mode, trace, answer, nil, limit)
			want, finish := applyLimits(whole, nil, limit)
			if rep.usage.CompletionTokens != EstimateTokens(want) || rep.usage.CompletionTokens > limit || rep.finish != finish {
				t.Errorf("%s, max_tokens %d: completion_tokens %d, finish %s; want %d (%q), %s", mode, limit, rep.usage.CompletionTokens, rep.finish, EstimateTokens(want), want, finish)
			}
			if mode != ReasoningField {
				continue
			}
			if !strings.HasPrefix(trace, rep.reasoning) || !strings.HasPrefix(answer, rep.text) || rep.text != "" && rep.reasoning != trace {
				t.Errorf("field, max_tokens %d: reasoning %q, content %q", limit, rep.reasoning, rep.text)
			}
			if d := rep.usage.Details; d == nil || d.ReasoningTokens != EstimateTokens(rep.reasoning) {
				t.Errorf("field, max_tokens %d: details %+v for %q", limit, d, rep.reasoning)
			}
		}
	}
}
