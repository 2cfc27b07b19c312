package reasoning

import (
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// FuzzParse: whatever the text, the answer is a piece of it (nothing is
// made up), a text without a trace is its own answer, a trace that never
// ended leaves no answer, and the rule applied twice changes nothing more.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.text, tc.opened, "stop")
	}
	f.Add("<think><think></think></think>", false, "length")
	f.Add("<|start|><|channel|><|message|><|end|>", false, "length")
	f.Add("<|channel|>final<|message|>", true, "stop")
	f.Add("</thinking></think>x", false, "stop")
	f.Fuzz(func(t *testing.T, text string, opened bool, finish string) {
		s := Parse(text, opened)
		if !strings.Contains(text, s.Answer) {
			t.Fatalf("answer %q is not in the text %q", s.Answer, text)
		}
		if s.Format == "" && (s.Answer != text || s.Trace != "" || s.Open) {
			t.Fatalf("no trace found, yet %+v for %q", s, text)
		}
		if s.Open && s.Answer != "" {
			t.Fatalf("an open trace with an answer: %+v", s)
		}
		if s.Format != "" && len(s.Answer)+len(s.Trace) > len(text) {
			t.Fatalf("answer and trace longer than the text: %+v for %q", s, text)
		}
		mode := Strip
		if opened {
			mode = Opened
		}
		resp := record.Response{Text: text, FinishReason: finish}
		Apply(mode, &resp, words{})
		if resp.RawText != "" && resp.RawText != text {
			t.Fatalf("raw_text %q, want the text %q", resp.RawText, text)
		}
		once, _ := record.Marshal(resp)
		Apply(mode, &resp, words{})
		if twice, _ := record.Marshal(resp); string(twice) != string(once) {
			t.Fatalf("applied twice:\n%s\n%s", once, twice)
		}
	})
}
