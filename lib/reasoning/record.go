package reasoning

import (
	"context"
	"sync"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/tokens"
	"github.com/urfave/cli/v2"
)

// Flag is the --reasoning flag (name: "reasoning", or "judge-reasoning" for
// the judge's model); whose says whose replies it reads.
func Flag(name, whose string) *cli.StringFlag {
	return &cli.StringFlag{Name: name, Value: string(Strip), Usage: "what to do with a reasoning trace (<think>…</think>, gpt-oss harmony channels, the server's reasoning_content) in " + whose + ": `MODE` strip scores the answer after it and fails a reply whose trace never ended (reasoning_unfinished); opened also takes a reply without </think> for such a trace (chat templates that open it in the prompt: DeepSeek-R1, QwQ); keep scores the text as received, as the official scripts do"}
}

// Estimate counts a trace with the default encoding (o200k_base, an
// estimate) where the stage has no tokenizer of the model: split-subtasks
// and judge, on records made elsewhere. It is loaded on first use.
var Estimate Counter = estimate{}

type estimate struct{}

var defaultEncoder = sync.OnceValue(func() *tokens.Encoder { return tokens.MustGet(tokens.Default) })

func (estimate) CountContext(ctx context.Context, s string) (int, error) {
	return defaultEncoder().CountContext(ctx, s)
}

func (estimate) Label() string { return defaultEncoder().Label() }

// ApplyRecord applies the rule to the response of a record that still
// holds its text (split-subtasks and judge: records made elsewhere, or by
// infer-batch --reasoning keep), keeping the response's other fields as
// they were. A record that failed, or a check cut from a reply (whose
// response has no text), is left alone. It returns the error to fail the
// record with when the trace never ended.
func ApplyRecord(rec *record.Record, mode Mode, count Counter) (*record.Error, error) {
	if mode == Keep || rec.Errored() || !rec.Has("response") {
		return nil, nil
	}
	raw := rec.Raw("response")
	obj, err := record.Object(raw)
	if err != nil || !obj.Has("text") {
		return nil, err
	}
	var resp record.Response
	if err := record.Unmarshal(raw, &resp); err != nil {
		return nil, err
	}
	if !Apply(mode, &resp, count) {
		return nil, nil
	}
	obj.Set("text", resp.Text)
	set := func(key string, v any, present bool) {
		if present {
			obj.Set(key, v)
		}
	}
	set("reasoning", resp.Reasoning, resp.Reasoning != "")
	set("reasoning_format", resp.ReasoningFormat, resp.ReasoningFormat != "")
	set("reasoning_tokens", resp.ReasoningTokens, resp.ReasoningTokens > 0)
	set("reasoning_tokens_from", resp.ReasoningTokensFrom, resp.ReasoningTokensFrom != "")
	set("reasoning_unfinished", true, resp.ReasoningUnfinished)
	set("raw_text", resp.RawText, resp.RawText != "")
	rec.SetRaw("response", obj.AppendJSON(nil))
	if !resp.ReasoningUnfinished {
		return nil, nil
	}
	var req struct {
		MaxTokens int `json:"max_tokens"`
	}
	rec.Decode("request", &req)
	return Unfinished(&resp, req.MaxTokens), nil
}
