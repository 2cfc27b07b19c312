package judge

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
)

// Verdicts of a check (docs/records.md, "judgement").
const (
	VerdictYes     = "yes"
	VerdictNo      = "no"
	VerdictMissing = "missing" // the part to judge is not in the output; no judge call was made
)

// chatCall is the body of a judge request; the Processor adds "model".
type chatCall struct {
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Temperature float64       `json:"temperature"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatCall builds a judge request body: one user message with the prompt,
// at the given max_tokens (0: the server's default) and temperature.
func ChatCall(prompt string, maxTokens int, temperature float64) ([]byte, error) {
	return record.Marshal(chatCall{Messages: []chatMessage{{"user", prompt}}, MaxTokens: maxTokens, Temperature: temperature})
}

// YesNo reads a judge's yes/no reply.
//
// Lenient (the default) is the LongGenBench evaluator's rule: the verdict is
// yes when "yes" occurs anywhere in the lower-cased reply (so
// "yes, although..." and even "not yes" read as yes), else no. Strict accepts
// only a reply that is exactly "yes" or "no", once surrounding whitespace,
// quotes, asterisks, "#*#" markers, an "Answer:" label and a final period are
// removed; anything else fails the record with VerdictError.
type YesNo struct {
	Strict bool
}

// Parse returns VerdictYes or VerdictNo.
func (v YesNo) Parse(reply string) (string, error) {
	low := strings.ToLower(reply)
	if !v.Strict {
		if strings.Contains(low, VerdictYes) {
			return VerdictYes, nil
		}
		return VerdictNo, nil
	}
	s := strings.TrimSpace(low)
	for prev := ""; prev != s; {
		prev = s
		s = strings.TrimSpace(strings.TrimPrefix(s, "answer:"))
		s = strings.TrimSpace(strings.Trim(s, "\"'`*#.!"))
	}
	if s == VerdictYes || s == VerdictNo {
		return s, nil
	}
	return "", VerdictError(reply)
}

// VerdictError is the error of a reply --strict-verdict rejects: it fails
// the record (kind "verdict") rather than guessing, and aggregate-ifs counts it.
func VerdictError(reply string) *record.Error {
	reply = redact.Excerpt(reply, 200)
	return &record.Error{Stage: "judge", Kind: "verdict", Message: fmt.Sprintf("--strict-verdict: the judge's reply is not a single yes or no: %q", reply)}
}
