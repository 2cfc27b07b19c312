package oai

import (
	"errors"
	"fmt"
	"net/http"
)

// ParseResult reads an answer that came back by another way than a call (a
// batch result line: HTTP status and body) exactly as Complete reads a
// non-streaming reply, so a batch run's records match an online run's.
func ParseResult(status int, body []byte) (*Completion, *Error) {
	var c *Client
	if status/100 != 2 {
		return nil, c.statusError(&http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), Header: http.Header{}}, body)
	}
	comp, err := c.parseBody(body)
	if err != nil {
		var oe *Error
		if errors.As(err, &oe) {
			return nil, oe
		}
		return nil, &Error{Kind: KindBadResponse, Message: err.Error()}
	}
	if !finished(comp.FinishReason) {
		return nil, aborted(comp)
	}
	return comp, nil
}

func aborted(comp *Completion) *Error {
	return &Error{Kind: KindAborted, Retryable: true, Message: fmt.Sprintf("reply ended without a finish_reason (%q) after %d characters: aborted by the server", comp.FinishReason, len(comp.Text))}
}
