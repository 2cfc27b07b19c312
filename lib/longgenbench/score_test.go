package longgenbench

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
)

func TestLexicalMatch(t *testing.T) {
	tests := []struct {
		event, text string
		want        bool
	}{
		{"my mother's birthday", "We baked a cake for my Mother's Birthday on Sunday.", true},
		{"my mother's birthday", "Two birthdays this month, but not my father's.", false},
		{"Taco Tuesday featuring fish tacos", "Tuesday is taco night: fish taco plates for all.", true},
		{"sky garden", "A garden terrace with a view of the sky.", true}, // word order is not checked
		{"sky garden", "A garden terrace.", false},
		{"co-working space", "Shared desks: a co-working space with phone booths.", true},
		{"the", "the", false}, // an event without content words matches nothing
	}
	for _, tc := range tests {
		if got, _, _ := LexicalMatch(tc.event, tc.text); got != tc.want {
			t.Errorf("LexicalMatch(%q, %q) = %v", tc.event, tc.text, got)
		}
	}
	if got := ContentWords("my grandmother's birthdays and the libraries"); !reflect.DeepEqual(got, []string{"grandmother", "birthday", "library"}) {
		t.Errorf("ContentWords = %q", got)
	}
}

func child(t *testing.T, found bool, text string) *record.Record {
	t.Helper()
	rec := record.New("r1#single-34")
	rec.Set("parent", "r1")
	rec.Set("bench", Bench)
	rec.Set("gold", CheckGold{Check: Single, Entry: 34, Event: "aerial gym", Label: "Floor"})
	rec.Set("entry", Entry{Found: found, Text: text})
	return rec
}

func newScorer(t *testing.T, opt judge.Options) judge.Scorer {
	t.Helper()
	s, err := NewScorer(opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScorerMissingNeedsNoCall(t *testing.T) {
	for _, mode := range []string{judge.ModeLLM, judge.ModeLexical} {
		d, err := newScorer(t, judge.Options{Mode: mode}).Prepare(child(t, false, ""))
		if err != nil || d.Call != nil || d.Judgement == nil || d.Judgement.Verdict != judge.VerdictMissing || d.Judgement.Score != 0 {
			t.Errorf("%s: %+v, %v", mode, d, err)
		}
	}
}

func TestScorerLexicalIsLabelled(t *testing.T) {
	s := newScorer(t, judge.Options{Mode: judge.ModeLexical})
	for text, want := range map[string]string{"Floor 34: an aerial gym with a view": judge.VerdictYes, "Floor 34: offices": judge.VerdictNo} {
		d, err := s.Prepare(child(t, true, text))
		if err != nil || d.Judgement == nil {
			t.Fatalf("%+v, %v", d, err)
		}
		j := d.Judgement
		if j.Verdict != want || j.Rubric != "longgenbench-lexical-v1" || j.Detail["mode"] != judge.ModeLexical {
			t.Errorf("%q: %+v", text, j)
		}
	}
}

func TestScorerLLMCall(t *testing.T) {
	for _, tc := range []struct {
		prompt   string
		examples bool
	}{{"", true}, {Prompt3Shot, true}, {PromptZeroShot, false}} {
		s := newScorer(t, judge.Options{Mode: judge.ModeLLM, Prompt: tc.prompt})
		d, err := s.Prepare(child(t, true, "Floor 34: offices"))
		if err != nil || d.Judgement != nil {
			t.Fatalf("%+v, %v", d, err)
		}
		var body struct {
			Messages    []struct{ Role, Content string }
			Temperature float64
			MaxTokens   int `json:"max_tokens"`
		}
		if err := record.Unmarshal(d.Call, &body); err != nil {
			t.Fatal(err)
		}
		p := body.Messages[0].Content
		if body.Temperature != 0 || body.MaxTokens != judgeMaxTokens || len(body.Messages) != 1 {
			t.Errorf("body %s", d.Call)
		}
		if strings.Contains(p, "Example 3") != tc.examples || !strings.HasSuffix(p, "Context: Floor 34: offices\n"+questionLead+"aerial gym"+questionTail+"\nAnswer:") {
			t.Errorf("prompt %q:\n%s", tc.prompt, p)
		}
	}
}

func TestScorerParse(t *testing.T) {
	lenient := newScorer(t, judge.Options{})
	j, err := lenient.Parse(child(t, true, "x"), "Yes, it does.")
	if err != nil || j.Verdict != judge.VerdictYes || j.Score != 1 || j.Rubric != "longgenbench-llm-3shot-v1" {
		t.Errorf("%+v, %v", j, err)
	}
	strict := newScorer(t, judge.Options{StrictVerdict: true})
	_, err = strict.Parse(child(t, true, "x"), "Yes, it does.")
	var re *record.Error
	if !errors.As(err, &re) {
		t.Errorf("strict: %v", err)
	}
	if _, err := NewScorer(judge.Options{Mode: "regex"}); err == nil {
		t.Error("unknown mode accepted")
	}
	if _, err := NewScorer(judge.Options{Prompt: "5shot"}); err == nil {
		t.Error("unknown prompt accepted")
	}
	unsplit := record.New("r1")
	unsplit.Set("bench", Bench)
	if _, err := lenient.Prepare(unsplit); err == nil {
		t.Error("an unsplit record was judged")
	}
}
