package sim

import (
	"fmt"
	"strings"
)

// The ways llm-sim --reasoning sends a trace, as the servers that serve
// thinking models do.
const (
	// ReasoningInline: <think>…</think> before the answer, in the text
	// (Qwen3, DeepSeek-R1 without a reasoning parser).
	ReasoningInline = "inline"
	// ReasoningHarmony: gpt-oss's channels, analysis then final, in the text.
	ReasoningHarmony = "harmony"
	// ReasoningField: beside the text, as reasoning_content (a server with
	// a reasoning parser), with the server's count in usage; chat only. The
	// model writes ReasoningInline's tags; the parser takes them out.
	ReasoningField = "field"
)

// markup is what surrounds a trace in each mode's generated text.
var markup = map[string][2]string{
	ReasoningInline:  {"<think>\n", "\n</think>\n\n"},
	ReasoningHarmony: {"<|channel|>analysis<|message|>", "<|end|><|start|>assistant<|channel|>final<|message|>"},
}

// think makes the reply of a model that thinks: the trace, then the
// answer, generated as one sequence, so max_tokens and the stop strings
// cut them together; a cut inside the trace leaves no answer.
//
// completion_tokens counts that sequence once, as vLLM counts a reply
// (len(output.token_ids)): the trace, its tags and the answer, never more
// than max_tokens. In field mode the model still writes its think tags and
// the server's reasoning parser takes them out, so they count in
// completion_tokens but in neither part; reasoning_tokens counts the trace
// between them, as vLLM's parsers count the span between <think> and
// </think>.
func (rep *reply) think(mode, trace, answer string, stop []string, limit int) {
	written := mode
	if mode == ReasoningField {
		written = ReasoningInline
	}
	m := markup[written]
	var out string
	out, rep.finish = applyLimits(m[0]+trace+m[1]+answer, stop, limit)
	rep.usage.CompletionTokens = EstimateTokens(out)
	if mode != ReasoningField {
		rep.text = out
		return
	}
	rest := out[min(len(out), len(m[0])):]
	if len(rest) <= len(trace) {
		rep.reasoning = rest
	} else {
		rep.reasoning, rep.text = trace, rest[min(len(rest), len(trace)+len(m[1])):]
	}
	rep.usage.Details = &usageDetails{ReasoningTokens: EstimateTokens(rep.reasoning)}
}

// trace is what the model thinks before it answers: what its solver would
// have scored if the trace were read (Thinker), a note on how the reply
// was made, then more thoughts up to --reasoning-len tokens (cut there).
func (s *Server) trace(req *Request, solver Solver, p Params, name string) string {
	var b strings.Builder
	if t, ok := solver.(Thinker); ok {
		b.WriteString(t.Think(req, p))
		b.WriteString("\n")
	}
	how := "no solver recognised the prompt, so I answer with plain text"
	if name != "" {
		how = "the " + name + " solver recognised the prompt"
	}
	fmt.Fprintf(&b, "The prompt has about %d tokens and %s (skill %.2f).", p.PromptTokens, how, p.Skill)
	n := s.opt.ReasoningLen
	if n == 0 {
		return b.String()
	}
	for have := EstimateTokens(b.String()); have < n; have = EstimateTokens(b.String()) {
		for range (n-have)/8 + 1 {
			b.WriteString(" " + pick(p.Rand, thoughts))
		}
	}
	out, _ := truncateTokens(b.String(), n)
	return out
}

// thoughts pad a trace to its length: words no scorer counts.
var thoughts = []string{
	"First I read the request.", "Then I check the instructions.", "Next I draft the answer.",
	"I keep the answer short.", "Let me look at that again.", "Wait, I should be careful here.",
	"That seems right so far.", "Now the remaining part.",
}
