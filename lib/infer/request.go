package infer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/tokens"
)

// call is a request ready to send.
type call struct {
	body      []byte
	path      string
	stream    bool
	estTokens int // estimated prompt tokens; 0 when not tokenized
	textBytes int // bytes of prompt text, for the cheap truncation check
	maxTokens int
	cut       int // context tokens removed by --truncate-context
}

// perMessageTokens approximates the chat template's tokens around each
// message (OpenAI documents 3–4; open models' templates are similar).
const perMessageTokens = 4

// build turns a request body (without model) into the body to send, checks
// it against --max-model-len and, if allowed, cuts its context.
func (e *engine) build(req []byte) (*call, *record.Error) {
	if !e.opt.needTokens() {
		if c, re, ok := e.buildRaw(req); ok {
			return c, re
		}
	}
	return e.buildSlow(req)
}

// buildSlow decodes the request: for token counts and cutting.
func (e *engine) buildSlow(req []byte) (*call, *record.Error) {
	var m map[string]json.RawMessage
	if err := record.Unmarshal(req, &m); err != nil || m == nil {
		return nil, &record.Error{Kind: oai.KindBadRequest, Message: "request is not a JSON object"}
	}
	c := &call{}
	var msgs []map[string]json.RawMessage
	var prompt string
	promptIsString := false
	switch {
	case m["messages"] != nil:
		c.path = oai.PathChat
		if e.opt.needTokens() {
			if err := record.Unmarshal(m["messages"], &msgs); err != nil || len(msgs) == 0 {
				return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request "messages" is not a non-empty array of objects`}
			}
		} else if b := m["messages"]; len(b) < 2 || b[0] != '[' {
			return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request "messages" is not an array`}
		}
	case m["prompt"] != nil:
		c.path = oai.PathCompletions
		if e.opt.needTokens() {
			promptIsString = record.Unmarshal(m["prompt"], &prompt) == nil
		}
	default:
		return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request has neither "messages" (chat) nor "prompt" (completions)`}
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if raw := m[k]; raw != nil {
			var n int
			if record.Unmarshal(raw, &n) == nil && n > 0 {
				c.maxTokens = n
				break
			}
		}
	}

	// Without a limit to check, the raw length is enough (for the silent
	// truncation warning): a 500 KB prompt is not decoded or tokenized.
	c.textBytes = len(m["messages"]) + len(m["prompt"])
	var texts []string
	if e.opt.needTokens() {
		texts = make([]string, len(msgs))
		for i, msg := range msgs {
			texts[i] = contentString(msg["content"])
		}
		if c.path == oai.PathChat {
			for _, t := range texts {
				c.estTokens += e.enc.Count(t) + perMessageTokens
			}
			c.estTokens += 3 // the assistant's reply header
		} else if promptIsString {
			c.estTokens = e.enc.Count(prompt)
		} else {
			c.estTokens = c.textBytes / 4
		}
	}
	if L := e.opt.MaxModelLen; L > 0 && c.estTokens+c.maxTokens > L {
		excess := c.estTokens + c.maxTokens - L
		if !e.opt.TruncateContext {
			return nil, &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: about %d prompt tokens + max_tokens %d exceed --max-model-len %d (estimated with %s); --truncate-context would cut the context", c.estTokens, c.maxTokens, L, e.enc.Name)}
		}
		if c.path == oai.PathChat {
			target := 0
			for i := range texts {
				if len(texts[i]) > len(texts[target]) {
					target = i
				}
			}
			cutText, err := cutContext(e.enc, texts[target], excess, e.opt.ContextMarkers)
			if err != nil {
				return nil, &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: about %d prompt tokens + max_tokens %d exceed --max-model-len %d, and %v", c.estTokens, c.maxTokens, L, err)}
			}
			msgs[target]["content"] = record.Quote(cutText)
			b, _ := record.Marshal(msgs)
			m["messages"] = b
		} else {
			if !promptIsString {
				return nil, &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: about %d prompt tokens + max_tokens %d exceed --max-model-len %d, and a non-string prompt cannot be cut", c.estTokens, c.maxTokens, L)}
			}
			cutText, err := cutContext(e.enc, prompt, excess, e.opt.ContextMarkers)
			if err != nil {
				return nil, &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: about %d prompt tokens + max_tokens %d exceed --max-model-len %d, and %v", c.estTokens, c.maxTokens, L, err)}
			}
			m["prompt"] = record.Quote(cutText)
		}
		c.cut = excess
		c.estTokens -= excess
	}

	m["model"] = record.Quote(e.model)
	if e.opt.Stream {
		c.stream = true
		m["stream"] = json.RawMessage("true")
		m["stream_options"] = json.RawMessage(`{"include_usage":true}`)
	} else if string(m["stream"]) == "true" {
		c.stream = true
	}
	b, err := record.Marshal(m)
	if err != nil {
		return nil, &record.Error{Kind: oai.KindBadRequest, Message: "request: " + err.Error()}
	}
	c.body = b
	return c, nil
}

// contentString is a message's text: a string, or its text parts joined.
func contentString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if record.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if record.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// cutContext removes n tokens from the right end of the context part of a
// prompt and keeps the instruction, as LIFBench does when a prompt does not
// fit (its context, the text before the instruction, is cut to the budget).
// The instruction starts at the last of the markers (LIFBench's templates say
// "Instruction:" or "Instructions:"); without a marker, the last paragraph
// (after the last blank line) is taken as the instruction. Only a string
// content can be cut, and only the text of the longest message (chat).
func cutContext(enc *tokens.Encoder, text string, n int, markers []string) (string, error) {
	at := -1
	for _, mk := range markers {
		if mk == "" {
			continue
		}
		if i := strings.LastIndex(text, mk); i > at {
			at = i
		}
	}
	if at < 0 {
		at = strings.LastIndex(text, "\n\n")
	}
	// The separator before the instruction ("\n\n") belongs to it.
	for at > 0 && strings.ContainsRune(" \t\r\n", rune(text[at-1])) {
		at--
	}
	if at <= 0 {
		return "", fmt.Errorf("no instruction marker (%s) or blank line to cut before", strings.Join(markers, ", "))
	}
	ctx, instr := text[:at], text[at:]
	kept, total := enc.DropLast(ctx, n)
	if total <= n {
		return "", fmt.Errorf("the context part has only %d tokens, %d would have to go", total, n)
	}
	return kept + instr, nil
}
