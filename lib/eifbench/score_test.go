package eifbench

import (
	"errors"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// The expected values of the Chinese replies are what the official
// 6_evaluation.py get_answer decides: re.findall(r'答案：是|答案：否') found
// exactly once wins; otherwise yes iff "是" in the reply and "否" not.
func TestParseVerdict(t *testing.T) {
	tests := []struct {
		reply, want, how string
		strict           bool
		bad              bool
	}{
		// Official, Chinese: exactly the official parser.
		{reply: "分析：回答满足要求。\n答案：是", want: "yes", how: "answer_line"},
		{reply: "分析：没有做到，否则会更好。\n答案：是", want: "yes", how: "answer_line"}, // exactly once decides, whatever else is said
		{reply: "分析：...\n答案：否", want: "no", how: "answer_line"},
		{reply: "答案：是\n答案：否", want: "no", how: "fallback"},       // twice: 是 and 否 both present
		{reply: "答案：是\n再次确认，答案：是", want: "yes", how: "fallback"}, // twice, 否 absent
		{reply: "这个回答是正确的", want: "yes", how: "fallback"},
		{reply: "这个回答是错的，否", want: "no", how: "fallback"},
		{reply: "答案：是的", want: "yes", how: "answer_line"},
		{reply: "是", want: "yes", how: "fallback"},
		{reply: "否", want: "no", how: "fallback"},
		{reply: "分析：回答是否满足约束？满足。\n答案: 是", want: "no", how: "fallback"}, // ASCII colon is no verdict line; 否 occurs in 是否
		{reply: "分析：满足。\n答案: 是", want: "yes", how: "fallback"},         // ASCII colon, but 否 absent
		{reply: "分析：满足。\n答案： 是", want: "yes", how: "fallback"},         // a space after the colon: no verdict line either
		{reply: "Answer: yes, 否", want: "no", how: "fallback"},         // any Chinese verdict character: the official rule
		{reply: "分析：满足。\n答案：YES", want: "no", how: "fallback"},         // the Chinese label with an English verdict: no 是, so no
		{reply: "答案: yes", want: "no", how: "fallback"},
		// Official, English (no 是 or 否): the same rules in English.
		{reply: "Analysis: fine.\nAnswer: yes", want: "yes", how: "answer_line"},
		{reply: "Analysis: no title line.\nAnswer: No", want: "no", how: "answer_line"},
		{reply: "Analysis: there is no problem.\n**Answer:** yes", want: "yes", how: "answer_line"},
		{reply: "Answer: nothing is wrong, so yes", want: "yes", how: "fallback"}, // "nothing" is not "no"
		{reply: "Yes.", want: "yes", how: "bare"},
		{reply: " no ", want: "no", how: "bare"},
		{reply: "The constraint holds, so yes.", want: "yes", how: "fallback"},
		{reply: "Yes, but there is no title.", want: "no", how: "fallback"},
		{reply: "Nothing to say; nobody knows.", want: "no", how: "fallback"}, // no verdict at all
		// Strict: one verdict line or a bare verdict, either colon.
		{reply: "Yes, it holds.", strict: true, bad: true},
		{reply: "Answer: yes", strict: true, want: "yes", how: "answer_line"},
		{reply: "no", strict: true, want: "no", how: "bare"},
		{reply: "是", strict: true, want: "yes", how: "bare"},
		{reply: "分析：回答是否满足约束？满足。\n答案: 是", strict: true, want: "yes", how: "answer_line"},
		{reply: "这个回答是正确的", strict: true, bad: true},
		{reply: "分析：满足。\n答案：YES", strict: true, want: "yes", how: "answer_line"}, // strict reads the verdict line; official says no
	}
	for _, tc := range tests {
		v, how, ok := ParseVerdict(tc.reply, tc.strict)
		if tc.bad {
			if ok {
				t.Errorf("%q (strict): accepted as %s", tc.reply, v)
			}
			continue
		}
		if !ok || v != tc.want || how != tc.how {
			t.Errorf("%q (strict %v): %s by %s (ok %v), want %s by %s", tc.reply, tc.strict, v, how, ok, tc.want, tc.how)
		}
	}
}

// Replies that are no verdict. 8_metric.py leaves out "None" and "Err"
// (point_explanation in ['None', 'Err']) in both modes. An empty reply is 否
// officially: get_answer asks the judge again but ignores the answer and
// parses the empty reply, and that judgement is the last one written for the
// check, the one 8_metric.py keeps. --strict-verdict asks again instead.
func TestParseSentinelsAndEmpty(t *testing.T) {
	for _, strict := range []bool{false, true} {
		s, _ := NewScorer(judge.Options{StrictVerdict: strict})
		for _, tc := range []struct {
			reply, kind string
			retry       bool
		}{
			{"", KindEmptyReply, strict},
			{" \n", KindEmptyReply, strict},
			{"Err", KindSentinel, false},
			{"None", KindSentinel, false},
		} {
			j, err := s.Parse(nil, tc.reply)
			var oe *oai.Error
			var re *record.Error
			switch {
			case tc.kind == KindEmptyReply && !strict:
				if err != nil || j.Verdict != judge.VerdictNo || j.Score != 0 || j.Detail["parsed_by"] != "empty_reply" {
					t.Errorf("official, %q: %+v, %v; want a no verdict parsed_by empty_reply", tc.reply, j, err)
				}
			case tc.retry && (!errors.As(err, &oe) || !oe.Retryable || oe.Kind != tc.kind):
				t.Errorf("%q: err %v, want a retryable %s", tc.reply, err, tc.kind)
			case !tc.retry && (!errors.As(err, &re) || re.Kind != tc.kind):
				t.Errorf("%q: err %v, want a record error of kind %s", tc.reply, err, tc.kind)
			}
		}
		if j, err := s.Parse(nil, "None of the constraints is broken. Answer: yes"); err != nil || j.Verdict != judge.VerdictYes {
			t.Errorf("a reply that merely starts with None: %+v, %v", j, err)
		}
	}
}

func TestNewScorerModes(t *testing.T) {
	if _, err := NewScorer(judge.Options{Mode: "llm"}); err != nil {
		t.Fatal(err)
	}
	_, err := NewScorer(judge.Options{Mode: "lexical"})
	if err == nil || !strings.Contains(err.Error(), "no offline approximation") {
		t.Errorf("--judge lexical: err %v, want a clear usage error", err)
	}
	if _, err := NewScorer(judge.Options{Mode: "llm", Prompt: "zh"}); err != nil {
		t.Errorf("--judge-prompt zh: %v", err)
	}
	if _, err := NewScorer(judge.Options{Mode: "llm", Prompt: "fancy"}); err == nil {
		t.Error("an unknown --judge-prompt was accepted")
	}
}

func judgeMessage(t *testing.T, d judge.Decision) string {
	t.Helper()
	var body expand.ChatRequest
	if err := record.Unmarshal(d.Call, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 1 || *body.Temperature != 0 {
		t.Fatalf("judge body %s", d.Call)
	}
	return body.Messages[0].Content
}

func TestPrepare(t *testing.T) {
	req, task := pipelineRequest(t)
	req.Set("response", record.Response{Text: "start_sub_instruction_1\nTHE NOTICE\nend_sub_instruction_1\nstray text"})
	kids := splitAll(t, req)
	s, _ := NewScorer(judge.Options{})

	d, err := s.Prepare(kids[0])
	if err != nil || d.Judgement != nil {
		t.Fatalf("Prepare: %v %+v", err, d.Judgement)
	}
	msg := judgeMessage(t, d)
	for _, want := range []string{task.Input, task.Subs[0].Instruction, "THE NOTICE", task.Subs[0].Constraints[0], secAnswer} {
		if !strings.Contains(msg, want) {
			t.Errorf("judge prompt lacks %q", want)
		}
	}
	if strings.Contains(msg, "stray text") || strings.Contains(msg, task.Subs[0].Constraints[1]) {
		t.Error("judge prompt shows more than the answer and its one constraint")
	}

	zh, _ := NewScorer(judge.Options{Prompt: "zh"})
	d, _ = zh.Prepare(kids[0])
	if msg := judgeMessage(t, d); !strings.HasPrefix(msg, judgeTexts["zh"].head) || !strings.Contains(msg, "答案：是") || !strings.Contains(msg, "THE NOTICE") {
		t.Errorf("zh judge prompt:\n%s", msg)
	}

	// A missing answer: the judge searches the whole reply.
	d, _ = s.Prepare(kids[len(kids)-1])
	msg = judgeMessage(t, d)
	if !strings.Contains(msg, secReply) || !strings.Contains(msg, "stray text") {
		t.Error("a missing answer's judge prompt does not show the whole reply")
	}

	// An empty reply needs no judge.
	req.Set("response", record.Response{Text: "  "})
	d, err = s.Prepare(splitAll(t, req)[0])
	if err != nil || d.Judgement == nil || d.Judgement.Verdict != judge.VerdictMissing || d.Call != nil {
		t.Errorf("empty reply: %v %+v", err, d)
	}

	// Unsplit records are refused.
	if _, err := s.Prepare(req); err == nil || !strings.Contains(err.Error(), "split-subtasks") {
		t.Errorf("unsplit record: err %v", err)
	}
}

func TestParse(t *testing.T) {
	s, _ := NewScorer(judge.Options{})
	j, err := s.Parse(nil, "Analysis: ok\nAnswer: yes")
	if err != nil || j.Score != 1 || j.Verdict != judge.VerdictYes || j.Rubric != Rubric {
		t.Errorf("yes: %+v %v", j, err)
	}
	j, _ = s.Parse(nil, "答案：否")
	if j.Score != 0 || j.Verdict != judge.VerdictNo {
		t.Errorf("否: %+v", j)
	}
	strict, _ := NewScorer(judge.Options{StrictVerdict: true})
	_, err = strict.Parse(nil, "I think it is fine")
	var re *record.Error
	if !errors.As(err, &re) || re.Kind != "verdict" {
		t.Errorf("strict, no verdict: err %v, want a record error", err)
	}
}
