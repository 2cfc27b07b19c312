package reasoning

import (
	"context"
	"fmt"

	"github.com/ifkit/ifkit/lib/record"
)

// Mode is the --reasoning value of infer-batch, split-subtasks and judge
// (--judge-reasoning for judge's own model).
type Mode string

const (
	// Strip applies the rule (the default).
	Strip Mode = "strip"
	// Keep turns it off: the text is scored as received, as the official
	// scripts score it.
	Keep Mode = "keep"
	// Opened is Strip for a model whose chat template opens the trace in the
	// prompt (DeepSeek-R1 and its distillations, QwQ): a reply without a
	// closing tag is a trace that never ended, not an answer.
	Opened Mode = "opened"
)

// Modes lists the values, for help and messages.
const Modes = "strip (the default), keep or opened"

// ParseMode reads a --reasoning value; "" is Strip.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return Strip, nil
	case Strip, Keep, Opened:
		return m, nil
	}
	return "", fmt.Errorf("want %s", Modes)
}

// KindUnfinished is the error kind of a reply that ended while its model
// was still reasoning: it has no answer. It is final (the same request
// ends the same way): a larger max_tokens is the cure.
const KindUnfinished = "reasoning_unfinished"

// Counter counts a trace's tokens where the server did not: a
// *tokens.Encoder.
type Counter interface {
	CountContext(ctx context.Context, s string) (int, error)
	Label() string
}

// FromUsage is response.reasoning_tokens_from when the count is the
// server's (usage.completion_tokens_details.reasoning_tokens).
const FromUsage = "usage"

// Apply applies the rule to one response in place and reports whether it
// changed anything. It does nothing under Keep, and nothing to a response
// the rule already saw (reasoning_format set): applied again, to the
// answer of a trace, it could take a tag in that answer for another one.
//
// When the text holds a trace, the trace is appended to Reasoning (after
// what the server sent there, a blank line between), the answer becomes
// Text, and RawText keeps the text as received. ReasoningFormat says what
// was found: ThinkTags, Harmony, Server, or Server+"+"+the inline format
// when a server that split one trace off left another in the text.
// ReasoningTokens counts the trace: the server's usage when it reports
// them, else count's (nil: not counted). ReasoningUnfinished marks a reply
// that has no answer because its trace never ended: the caller fails the
// record (Unfinished).
func Apply(mode Mode, resp *record.Response, count Counter) bool {
	if mode == Keep || resp.ReasoningFormat != "" {
		return false
	}
	s := Parse(resp.Text, mode == Opened && resp.Reasoning == "")
	format := s.Format
	if resp.Reasoning != "" {
		format = join(Server, format)
	}
	usage := resp.Usage.ReasoningTokens()
	// The server split the trace off (or hid it, as OpenAI's reasoning
	// models do) and cut the reply at max_tokens before any answer came.
	serverOpen := resp.FinishReason == "length" && s.Format == "" && s.Answer == "" && (resp.Reasoning != "" || usage > 0)
	if serverOpen && format == "" {
		format = Server
	}
	changed := false
	if s.Format != "" {
		resp.RawText = resp.Text
		resp.Text = s.Answer
		if s.Trace != "" {
			resp.Reasoning = join2(resp.Reasoning, s.Trace)
		}
		changed = true
	}
	if format != "" {
		resp.ReasoningFormat = format
		changed = true
	}
	if s.Open || serverOpen {
		resp.ReasoningUnfinished = true
	}
	switch {
	case usage > 0:
		resp.ReasoningTokens, resp.ReasoningTokensFrom = usage, FromUsage
	case resp.Reasoning != "" && count != nil:
		if n, err := count.CountContext(context.Background(), resp.Reasoning); err == nil {
			resp.ReasoningTokens, resp.ReasoningTokensFrom = n, count.Label()
		}
	}
	return changed || resp.ReasoningTokens > 0
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "+" + b
}

func join2(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// Unfinished is the error of a response whose trace never ended (Apply
// set ReasoningUnfinished); maxTokens is the request's (0: not known). The
// message says what to do: it is the example the failure tally of the
// stderr summary shows.
func Unfinished(resp *record.Response, maxTokens int) *record.Error {
	budget := "max_tokens"
	if maxTokens > 0 {
		budget = fmt.Sprintf("max_tokens %d", maxTokens)
	}
	tokens := ""
	if resp.ReasoningTokens > 0 {
		tokens = fmt.Sprintf(" after a trace of %d tokens", resp.ReasoningTokens)
	}
	if resp.FinishReason == "length" {
		return &record.Error{Kind: KindUnfinished, Message: fmt.Sprintf("cut at %s while still reasoning%s, before any answer: raise max_tokens for a reasoning model (expand-templates --reasoning-budget N, the pipeline scripts' --reasoning-budget N)", budget, tokens)}
	}
	return &record.Error{Kind: KindUnfinished, Message: fmt.Sprintf("the reply ended (finish_reason %q)%s inside its reasoning trace, before any answer: a stop sequence met in the trace, or a trace never closed", resp.FinishReason, tokens)}
}
