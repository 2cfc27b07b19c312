package oai

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// Any body a server sends is an answer or an *Error with a kind; never a
// panic, never a success without a message.
func FuzzParseBody(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
		`{"choices":[{"text":"raw","finish_reason":"length"}]}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"reasoning_content":"r"}}]}`,
		`{"choices":[]}`, `{"choices":[{}]}`, `{"error":{"message":"overloaded"}}`, `{"error":null,"choices":[{"message":{"content":null}}]}`,
		`<html>502</html>`, ``, `null`, `{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-1}}`,
	} {
		f.Add([]byte(s))
	}
	c := New(1, time.Second, "")
	f.Fuzz(func(t *testing.T, body []byte) {
		comp, err := c.parseBody(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == "" {
				t.Fatalf("%q: error %v is not an *Error with a kind", body, err)
			}
			return
		}
		if comp == nil {
			t.Fatalf("%q: no answer and no error", body)
		}
	})
}

// Any SSE stream ends in an answer or an *Error; one that ends before [DONE]
// and before a finish_reason is never an answer.
func FuzzReadStream(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
		"data: not json\n\n", ": comment\n\ndata: [DONE]\n", "data: {\"error\":{\"message\":\"x\"}}\n\n", "",
		"data:{\"choices\":[{\"text\":\"t\",\"finish_reason\":\"length\"}]}\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	c := New(1, time.Second, "")
	f.Fuzz(func(t *testing.T, stream []byte) {
		comp, err := c.readStream(bytes.NewReader(stream), time.Now(), func(bool) {})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == "" {
				t.Fatalf("%q: error %v is not an *Error with a kind", stream, err)
			}
			return
		}
		if comp == nil {
			t.Fatalf("%q: no answer and no error", stream)
		}
		if !bytes.Contains(stream, []byte("[DONE]")) && comp.FinishReason == "" {
			t.Fatalf("%q: a stream without [DONE] or finish_reason passed as complete", stream)
		}
	})
}
