package oai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
)

func unmarshal(b []byte, v any) error { return record.Unmarshal(b, v) }

// message is a chat message or a streamed delta. Content is raw because
// servers send a string, null, or (newer OpenAI) an array of parts.
type message struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
}

type choice struct {
	Index        int      `json:"index"`
	Text         *string  `json:"text"`
	Message      *message `json:"message"`
	Delta        *message `json:"delta"`
	FinishReason *string  `json:"finish_reason"`
}

// body is a reply or a streamed event. Only the first choice is read (n is
// never asked for): a reply that holds millions of choices is not decoded
// into as many (readBody).
type body struct {
	Fingerprint string
	Choice      *choice // nil: no choices
	More        bool    // another choice follows the first
	Usage       *Usage
	Error       json.RawMessage
}

// readBody reads a reply or an event in place.
func readBody(b []byte) (*body, error) {
	obj, err := record.Object(b)
	if err != nil {
		return nil, err
	}
	v := &body{Fingerprint: obj.String("system_fingerprint"), Error: obj.Raw("error")}
	if raw := obj.Raw("usage"); raw != nil && string(raw) != "null" {
		var u Usage
		if err := obj.Decode("usage", &u); err != nil {
			return nil, err
		}
		v.Usage = &u
	}
	if raw := obj.Raw("choices"); raw != nil && string(raw) != "null" {
		first, ok, more, err := record.First(raw)
		if err != nil {
			return nil, err
		}
		v.More = more
		if ok {
			v.Choice = new(choice)
			if err := unmarshal(first, v.Choice); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// ContentText reads a message content: a string, null, or parts with "text"
// (a reply's, or a request's message in the item explorer).
func ContentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

func (m *message) reasoning() string {
	switch {
	case m.ReasoningContent != nil:
		return *m.ReasoningContent
	case m.Reasoning != nil:
		return *m.Reasoning
	}
	return ""
}

// parseBody reads a non-streaming answer of either endpoint.
func (c *Client) parseBody(b []byte) (*Completion, error) {
	v, err := readBody(b)
	if err != nil {
		return nil, &Error{Kind: KindBadResponse, Message: "response is not JSON: " + shorten(b), Retryable: true}
	}
	if len(v.Error) > 0 && string(v.Error) != "null" {
		return nil, &Error{Kind: KindServer, Message: errorMessage(b, "error in body"), Retryable: true}
	}
	if v.Choice == nil {
		return nil, &Error{Kind: KindBadResponse, Message: "response has no choices: " + shorten(b), Retryable: true}
	}
	ch := *v.Choice
	comp := &Completion{Fingerprint: v.Fingerprint, Choices: 1}
	if v.More {
		comp.Choices = 2
	}
	if ch.Message != nil {
		comp.Text = ContentText(ch.Message.Content)
		comp.Reasoning = ch.Message.reasoning()
	} else if ch.Text != nil {
		comp.Text = *ch.Text
	} else {
		// Not an empty answer: a reply without one, which must not be recorded
		// as a success.
		return nil, &Error{Kind: KindBadResponse, Message: "response choice has no message or text: " + shorten(b), Retryable: true}
	}
	if ch.FinishReason != nil {
		comp.FinishReason = *ch.FinishReason
	}
	if v.Usage != nil {
		comp.Usage, comp.HasUsage = *v.Usage, true
	}
	return comp, nil
}

// shorten is an excerpt of a reply for an error message.
func shorten(b []byte) string { return redact.Excerpt(string(b), 200) }

// readStream reads an SSE answer. progress is called on every event (first
// is true for the first one). A stream cut inside an event is a retryable
// truncated_stream; one that ends without [DONE] and without a finish_reason
// was aborted by the server (retryable too).
func (c *Client) readStream(r io.Reader, start time.Time, progress func(first bool)) (*Completion, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	comp := &Completion{}
	var text, reasoning strings.Builder
	events, done := 0, false
	var line []byte
	for !done {
		chunk, err := br.ReadSlice('\n')
		line = append(line[:0], chunk...)
		for err == bufio.ErrBufferFull {
			chunk, err = br.ReadSlice('\n')
			line = append(line, chunk...)
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		eof := err == io.EOF
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
		if ok {
			data = bytes.TrimSpace(data)
			progress(events == 0)
			events++
			if string(data) == "[DONE]" {
				done = true
				break
			}
			v, err := readBody(data)
			if err != nil {
				if eof {
					// The connection ended inside an event: cut, not malformed.
					return nil, &Error{Kind: KindTruncatedStream, Message: fmt.Sprintf("stream cut inside event %d", events), Retryable: true}
				}
				return nil, &Error{Kind: KindBadResponse, Message: "stream event is not JSON: " + shorten(data), Retryable: true}
			}
			if len(v.Error) > 0 && string(v.Error) != "null" {
				return nil, &Error{Kind: KindServer, Message: errorMessage(data, "error in stream"), Retryable: true}
			}
			if v.Fingerprint != "" {
				comp.Fingerprint = v.Fingerprint
			}
			if v.Usage != nil {
				comp.Usage, comp.HasUsage = *v.Usage, true
			}
			if v.More || v.Choice != nil && v.Choice.Index != 0 {
				// Another choice's events (n > 1): its text is not this one's.
				comp.Choices = 2
			}
			if v.Choice != nil && v.Choice.Index == 0 {
				ch := *v.Choice
				comp.Choices = max(comp.Choices, 1)
				n := text.Len() + reasoning.Len()
				if ch.Delta != nil {
					text.WriteString(ContentText(ch.Delta.Content))
					reasoning.WriteString(ch.Delta.reasoning())
				} else if ch.Text != nil {
					text.WriteString(*ch.Text)
				}
				if comp.TTFT == 0 && text.Len()+reasoning.Len() > n {
					comp.TTFT = time.Since(start)
				}
				if ch.FinishReason != nil && *ch.FinishReason != "" {
					comp.FinishReason = *ch.FinishReason
				}
			}
		}
		if eof {
			break
		}
	}
	if !done && comp.FinishReason == "" {
		// The server closed the stream between events without saying why:
		// aborted (a connection cut mid-body is a network error, mid-event
		// a truncated_stream, above).
		return nil, &Error{Kind: KindAborted, Message: fmt.Sprintf("stream ended after %d events without finish_reason or [DONE]", events), Retryable: true}
	}
	comp.Text, comp.Reasoning = text.String(), reasoning.String()
	return comp, nil
}

// Model is one entry of /v1/models. OwnedBy names the server for some
// (vllm, sglang, llamacpp); MaxModelLen is vLLM's and SGLang's max_model_len
// (0 when the server does not say).
type Model struct {
	ID          string `json:"id"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len"`
}

// Models lists the models an endpoint serves.
func (c *Client) Models(ctx context.Context, base string, timeout time.Duration) ([]Model, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	b, status, err := c.roundTrip(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, err
	}
	var v struct {
		Data []Model `json:"data"`
	}
	if err := unmarshal(b, &v); err != nil {
		return nil, &Error{Kind: KindBadResponse, Status: status, Message: fmt.Sprintf("%s/models: not a model list: %s", Label(base), shorten(b))}
	}
	return v.Data, nil
}

// ModelsOnce keeps each endpoint's answer to GET /v1/models (by base URL
// and key), asked once whichever client asks first: a judge run wants the
// model its records name before its engine's start-up check wants the
// model it sends and the server's context, and one answer is both. A nil
// ModelsOnce asks every time.
type ModelsOnce struct {
	mu     sync.Mutex
	byBase map[string]*modelsAnswer
}

type modelsAnswer struct {
	once sync.Once
	ms   []Model
	err  error
}

// Ask is c.Models(ctx, base, timeout), asked once (a second caller waits
// for the first) and kept, error too.
func (m *ModelsOnce) Ask(ctx context.Context, c *Client, base string, timeout time.Duration) ([]Model, error) {
	if m == nil {
		return c.Models(ctx, base, timeout)
	}
	key := c.key + "\x00" + base
	m.mu.Lock()
	if m.byBase == nil {
		m.byBase = map[string]*modelsAnswer{}
	}
	ans := m.byBase[key]
	if ans == nil {
		ans = &modelsAnswer{}
		m.byBase[key] = ans
	}
	m.mu.Unlock()
	ans.once.Do(func() { ans.ms, ans.err = c.Models(ctx, base, timeout) })
	return ans.ms, ans.err
}
