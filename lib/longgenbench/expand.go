package longgenbench

import (
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

// Official sampling (vLLM offline generation in the reference code).
const (
	DefaultTemperature = 0.95
	DefaultTopP        = 0.95
)

// Request is the completions body: the raw prompt is continued (no chat
// template), as the official vLLM path does.
type Request struct {
	Prompt      string   `json:"prompt"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p"`
	Stop        []string `json:"stop"`
}

// ChatRequest is the chat form (expand-templates --chat) for endpoints that
// serve no /v1/completions (OpenAI's current models): the same raw prompt as
// the user message, after a system message that asks for the continuation
// only. Unlike the official setup the model answers through its chat
// template, in a new assistant turn, instead of continuing the text itself;
// the system message keeps the reply in the shape split-subtasks reads (the
// prompt's last line, the first entry's prefix, is not repeated).
type ChatRequest struct {
	Messages    []expand.ChatMessage `json:"messages"`
	MaxTokens   int                  `json:"max_tokens"`
	Temperature float64              `json:"temperature"`
	TopP        float64              `json:"top_p"`
	Stop        []string             `json:"stop"`
}

// ContinueInstruction is the chat form's system message.
const ContinueInstruction = "The user's message is a document that stops partway through its first entry. " +
	"Reply with its continuation only: start exactly where it stops, without repeating any of it, and write " + EndMarker + " after the last entry."

type expander struct {
	opt expand.Options
	// chat asks for the chat form of the raw completion (--chat), for
	// endpoints that serve only /v1/chat/completions.
	chat bool
}

// NewExpander is the expand-templates expander; chat writes the chat form
// of the raw-completion request.
func NewExpander(opt expand.Options, chat bool) (expand.Expander, error) {
	return expander{opt, chat}, nil
}

func (e expander) Expand(item *record.Record, emit func(*record.Record) error) error {
	var ctx Context
	var g Gold
	if err := item.Decode("context", &ctx); err != nil {
		return app.Invalid(err)
	}
	if err := item.Decode("gold", &g); err != nil {
		return app.Invalid(err)
	}
	if ctx.Prompt == "" || g.Prefix == "" {
		return app.Invalidf("longgenbench item needs context.prompt and gold.prefix")
	}
	req := Request{Prompt: ctx.Prompt, MaxTokens: ctx.MaxTokens, Temperature: DefaultTemperature, TopP: DefaultTopP, Stop: []string{EndMarker}}
	// The official prompts already end with the start marker and the prefix;
	// an item written by hand may not.
	if !strings.HasSuffix(strings.TrimRight(req.Prompt, " \n"), g.Prefix) {
		req.Prompt = strings.TrimRight(req.Prompt, "\n") + "\n" + StartMarker + "\n" + g.Prefix
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = 16000
		if ctx.Version == Long {
			req.MaxTokens = 32000
		}
	}
	if e.opt.Temperature != nil {
		req.Temperature = *e.opt.Temperature
	}
	if e.opt.TopP != nil {
		req.TopP = *e.opt.TopP
	}
	if e.opt.MaxTokens != nil {
		req.MaxTokens = *e.opt.MaxTokens
	}
	out := item.Clone()
	var body any = req
	if e.chat {
		body = ChatRequest{Messages: []expand.ChatMessage{{Role: "system", Content: ContinueInstruction}, {Role: "user", Content: req.Prompt}},
			MaxTokens: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP, Stop: req.Stop}
	}
	if err := out.Set("request", body); err != nil {
		return err
	}
	return emit(out)
}
