package judge

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
)

// Verdicts of a check (DESIGN §2).
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
// yes when any Yes word occurs anywhere in the lower-cased reply (so
// "yes, although..." and even "not yes" read as yes), else no. Strict accepts
// only a reply that is exactly one Yes or No word, once surrounding
// whitespace, quotes, asterisks, "#*#" markers, an "Answer:" label and a
// final period are removed; anything else fails the record with a
// *record.Error of kind "verdict", which aggregate-ifs counts.
type YesNo struct {
	Yes, No []string // lower-case words; empty: "yes" and "no"
	Strict  bool
}

// Parse returns VerdictYes or VerdictNo.
func (v YesNo) Parse(reply string) (string, error) {
	yes, no := v.Yes, v.No
	if len(yes) == 0 {
		yes = []string{"yes"}
	}
	if len(no) == 0 {
		no = []string{"no"}
	}
	low := strings.ToLower(reply)
	if !v.Strict {
		for _, w := range yes {
			if strings.Contains(low, w) {
				return VerdictYes, nil
			}
		}
		return VerdictNo, nil
	}
	s := strings.TrimSpace(low)
	for prev := ""; prev != s; {
		prev = s
		s = strings.TrimSpace(strings.TrimPrefix(s, "answer:"))
		s = strings.TrimSpace(strings.Trim(s, "\"'`*#.!"))
	}
	for _, w := range yes {
		if s == w {
			return VerdictYes, nil
		}
	}
	for _, w := range no {
		if s == w {
			return VerdictNo, nil
		}
	}
	return "", &record.Error{Stage: "judge", Kind: "verdict", Message: fmt.Sprintf("--strict-verdict: the judge's reply is not exactly %s or %s: %q", yes[0], no[0], shorten(reply, 200))}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
