package infer

import (
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// buildRaw is build for a request that needs no token count (no
// --max-model-len, no --tpm): the body is the request's own bytes with
// "model" (and --stream's fields) spliced in, so a 455 KB prompt is scanned
// once and copied once, where decoding it into a map and encoding it again
// scanned it three times and copied it twice (issue 17: long prompts reached
// 0.82 of a server's capacity). Fields keep their order; a "model" (and,
// with --stream, "stream" and "stream_options") in the request is replaced.
// ok is false for a request that is not a JSON object, which build reports.
func (e *engine) buildRaw(req []byte) (c *call, re *record.Error, ok bool) {
	// A request is not a record: an "id" error leaves the fields parsed.
	m, _ := record.ParseOwned(req)
	if m == nil {
		return nil, nil, false
	}
	c = &call{}
	msgs, prompt := m.Raw("messages"), m.Raw("prompt")
	switch {
	case msgs != nil && string(msgs) != "null":
		if len(msgs) < 2 || msgs[0] != '[' {
			return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request "messages" is not an array`}, true
		}
		c.path = oai.PathChat
	case prompt != nil && string(prompt) != "null":
		c.path = oai.PathCompletions
	default:
		return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request has neither "messages" (chat) nor "prompt" (completions)`}, true
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		var n int
		if raw := m.Raw(k); raw != nil && record.Unmarshal(raw, &n) == nil && n > 0 {
			c.maxTokens = n
			break
		}
	}
	c.textBytes = len(msgs) + len(prompt)
	drop := map[string]bool{"model": true}
	if e.opt.Stream {
		drop["stream"], drop["stream_options"] = true, true
		c.stream = true
	} else {
		c.stream = string(m.Raw("stream")) == "true"
	}
	b := make([]byte, 0, len(req)+len(e.model)+64)
	b = append(b, '{')
	for _, k := range m.Keys() {
		if drop[k] {
			continue
		}
		b = append(b, record.Quote(k)...)
		b = append(b, ':')
		b = append(b, m.Raw(k)...)
		b = append(b, ',')
	}
	b = append(b, `"model":`...)
	b = append(b, record.Quote(e.model)...)
	if e.opt.Stream {
		b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	c.body = append(b, '}')
	return c, nil, true
}
