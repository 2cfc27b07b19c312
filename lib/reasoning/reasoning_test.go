package reasoning

import (
	"context"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// Replies as reasoning models give them when the server leaves the trace in
// the text (vLLM or SGLang without a reasoning parser, llama.cpp, Ollama
// with default settings), each with what the scorer must see.
var parseCases = []struct {
	name, text string
	opened     bool
	want       Split
}{
	{name: "qwen3 think tags", text: "<think>\nOkay, the user wants the IDs of the wrong answers. Question [3] says 2+2=5, wrong. Maybe [7] too? Let me check [7]: 3*3=9, right. So [3, 12].\n</think>\n\n[3, 12]",
		want: Split{Format: ThinkTags, Trace: "Okay, the user wants the IDs of the wrong answers. Question [3] says 2+2=5, wrong. Maybe [7] too? Let me check [7]: 3*3=9, right. So [3, 12].", Answer: "[3, 12]"}},
	{name: "deepseek-r1 without the opening tag", text: "Okay, so I need to write a business report that uses the words budget, growth and synergy. Let me draft: budget growth synergy.\n</think>\n\n<report>\nThe budget rose.\n</report>",
		want: Split{Format: ThinkTags, Trace: "Okay, so I need to write a business report that uses the words budget, growth and synergy. Let me draft: budget growth synergy.", Answer: "<report>\nThe budget rose.\n</report>"}},
	{name: "qwen3 with thinking off", text: "<think>\n\n</think>\n\n{\"answer\": 4}",
		want: Split{Format: ThinkTags, Answer: "{\"answer\": 4}"}},
	{name: "thinking tags", text: "  <thinking>\nThe output must be JSON like {\"name\": \"x\"}.\n</thinking>\n{\"name\": \"Ada\"}",
		want: Split{Format: ThinkTags, Trace: "The output must be JSON like {\"name\": \"x\"}.", Answer: "{\"name\": \"Ada\"}"}},
	{name: "reasoning tags", text: "<reasoning>Week 1 then Week 2.</reasoning>\nWeek 1: rest.",
		want: Split{Format: ThinkTags, Trace: "Week 1 then Week 2.", Answer: "Week 1: rest."}},
	{name: "think cut at max_tokens", text: "<think>\nLet me list the keywords: alpha, beta, gamma. Now the report. Part 1 notes alpha",
		want: Split{Format: ThinkTags, Trace: "Let me list the keywords: alpha, beta, gamma. Now the report. Part 1 notes alpha", Open: true}},
	{name: "an answer that names the tag", text: "<think>short</think>Close it with </think> like this.",
		want: Split{Format: ThinkTags, Trace: "short", Answer: "Close it with </think> like this."}},
	{name: "a tag in the middle of an answer", text: "Use <think> to open and then </think> to close.",
		want: Split{Answer: "Use <think> to open and then </think> to close."}},
	{name: "no trace", text: "[1, 4, 9]", want: Split{Answer: "[1, 4, 9]"}},
	{name: "a continuation that starts on a new line keeps it", text: "<think>\nWeek 1 comes first.\n</think>\n\n\nThe morning light was clear.",
		want: Split{Format: ThinkTags, Trace: "Week 1 comes first.", Answer: "\nThe morning light was clear."}},
	{name: "opened template, trace cut", text: "Okay, so the user wants 100 entries. Week 1: gym. Week 2:", opened: true,
		want: Split{Format: ThinkTags, Trace: "Okay, so the user wants 100 entries. Week 1: gym. Week 2:", Open: true}},
	{name: "opened template, trace closed", text: "Plan it.\n</think>\n\nWeek 1: gym.", opened: true,
		want: Split{Format: ThinkTags, Trace: "Plan it.", Answer: "Week 1: gym."}},
	{name: "gpt-oss harmony", text: "<|channel|>analysis<|message|>We need to output JSON with keys name and age, like {\"name\": \"x\"}. Let's produce.<|end|><|start|>assistant<|channel|>final<|message|>{\"name\": \"Ada\", \"age\": 36}",
		want: Split{Format: Harmony, Trace: "We need to output JSON with keys name and age, like {\"name\": \"x\"}. Let's produce.", Answer: "{\"name\": \"Ada\", \"age\": 36}"}},
	{name: "harmony with a start token, a constraint and a return", text: "<|start|>assistant<|channel|>analysis<|message|>Check [2] and [5].<|end|><|start|>assistant<|channel|>commentary<|message|>Still thinking.<|end|><|start|>assistant<|channel|>final <|constrain|>json<|message|>[2]<|return|>",
		want: Split{Format: Harmony, Trace: "Check [2] and [5].\n\nStill thinking.", Answer: "[2]"}},
	{name: "harmony cut in the analysis", text: "<|channel|>analysis<|message|>We need keywords alpha, beta. The report will",
		want: Split{Format: Harmony, Trace: "We need keywords alpha, beta. The report will", Open: true}},
	{name: "harmony cut after the analysis", text: "<|channel|>analysis<|message|>Done thinking.<|end|>",
		want: Split{Format: Harmony, Trace: "Done thinking.", Open: true}},
	{name: "harmony without its special tokens", text: "analysisWe need IDs. Maybe [4].assistantfinal[4, 8]",
		want: Split{Format: Harmony, Trace: "We need IDs. Maybe [4].", Answer: "[4, 8]"}},
	{name: "a reply that starts with the word analysis", text: "analysis of the data: growth.", want: Split{Answer: "analysis of the data: growth."}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse(tc.text, tc.opened); got != tc.want {
				t.Errorf("Parse(%q, %v)\n got %+v\nwant %+v", tc.text, tc.opened, got, tc.want)
			}
		})
	}
}

// words counts whitespace-separated words: a stand-in tokenizer whose
// counts a test can check by eye.
type words struct{}

func (words) CountContext(_ context.Context, s string) (int, error) {
	return len(strings.Fields(s)), nil
}
func (words) Label() string { return "words~" }

func usage(reasoning int) record.Usage {
	u := record.Usage{PromptTokens: 100, CompletionTokens: 50}
	if reasoning > 0 {
		u.CompletionTokensDetails = &record.CompletionTokensDetails{ReasoningTokens: reasoning}
	}
	return u
}

func TestApply(t *testing.T) {
	cases := []struct {
		name    string
		mode    Mode
		in      record.Response
		changed bool
		want    record.Response
	}{
		{name: "think tags, counted", mode: Strip,
			in:      record.Response{Text: "<think>two words</think>\n[1]", FinishReason: "stop"},
			changed: true,
			want:    record.Response{Text: "[1]", Reasoning: "two words", FinishReason: "stop", ReasoningFormat: ThinkTags, ReasoningTokens: 2, ReasoningTokensFrom: "words~", RawText: "<think>two words</think>\n[1]"}},
		{name: "think tags, the server's count", mode: Strip,
			in:      record.Response{Text: "<think>two words</think>[1]", FinishReason: "stop", Usage: usage(7)},
			changed: true,
			want:    record.Response{Text: "[1]", Reasoning: "two words", FinishReason: "stop", Usage: usage(7), ReasoningFormat: ThinkTags, ReasoningTokens: 7, ReasoningTokensFrom: FromUsage, RawText: "<think>two words</think>[1]"}},
		{name: "cut while thinking", mode: Strip,
			in:      record.Response{Text: "<think>still going", FinishReason: "length"},
			changed: true,
			want:    record.Response{Reasoning: "still going", FinishReason: "length", ReasoningFormat: ThinkTags, ReasoningTokens: 2, ReasoningTokensFrom: "words~", ReasoningUnfinished: true, RawText: "<think>still going"}},
		{name: "the server split it", mode: Strip,
			in:      record.Response{Text: "[2]", Reasoning: "We need [2].", FinishReason: "stop"},
			changed: true,
			want:    record.Response{Text: "[2]", Reasoning: "We need [2].", FinishReason: "stop", ReasoningFormat: Server, ReasoningTokens: 3, ReasoningTokensFrom: "words~"}},
		{name: "the server split it, cut while thinking", mode: Strip,
			in:      record.Response{Reasoning: "We need", FinishReason: "length"},
			changed: true,
			want:    record.Response{Reasoning: "We need", FinishReason: "length", ReasoningFormat: Server, ReasoningTokens: 2, ReasoningTokensFrom: "words~", ReasoningUnfinished: true}},
		{name: "a hidden trace cut (OpenAI's reasoning models)", mode: Strip,
			in:      record.Response{FinishReason: "length", Usage: usage(4096)},
			changed: true,
			want:    record.Response{FinishReason: "length", Usage: usage(4096), ReasoningFormat: Server, ReasoningTokens: 4096, ReasoningTokensFrom: FromUsage, ReasoningUnfinished: true}},
		{name: "a hidden trace and an answer", mode: Strip,
			in:      record.Response{Text: "[1]", FinishReason: "stop", Usage: usage(300)},
			changed: true,
			want:    record.Response{Text: "[1]", FinishReason: "stop", Usage: usage(300), ReasoningTokens: 300, ReasoningTokensFrom: FromUsage}},
		{name: "the server's and one left in the text", mode: Strip,
			in:      record.Response{Text: "<think>b c</think>A", Reasoning: "a", FinishReason: "stop"},
			changed: true,
			want:    record.Response{Text: "A", Reasoning: "a\n\nb c", FinishReason: "stop", ReasoningFormat: Server + "+" + ThinkTags, ReasoningTokens: 3, ReasoningTokensFrom: "words~", RawText: "<think>b c</think>A"}},
		{name: "an empty answer after a closed trace is an answer", mode: Strip,
			in:      record.Response{Text: "<think>x</think>", FinishReason: "length"},
			changed: true,
			want:    record.Response{Reasoning: "x", FinishReason: "length", ReasoningFormat: ThinkTags, ReasoningTokens: 1, ReasoningTokensFrom: "words~", RawText: "<think>x</think>"}},
		{name: "opened: no closing tag", mode: Opened,
			in:      record.Response{Text: "Okay, so", FinishReason: "length"},
			changed: true,
			want:    record.Response{Reasoning: "Okay, so", FinishReason: "length", ReasoningFormat: ThinkTags, ReasoningTokens: 2, ReasoningTokensFrom: "words~", ReasoningUnfinished: true, RawText: "Okay, so"}},
		{name: "opened, but the server split the trace", mode: Opened,
			in:      record.Response{Text: "[1]", Reasoning: "r", FinishReason: "stop"},
			changed: true,
			want:    record.Response{Text: "[1]", Reasoning: "r", FinishReason: "stop", ReasoningFormat: Server, ReasoningTokens: 1, ReasoningTokensFrom: "words~"}},
		{name: "no trace", mode: Strip,
			in:   record.Response{Text: "[1]", FinishReason: "length"},
			want: record.Response{Text: "[1]", FinishReason: "length"}},
		{name: "keep", mode: Keep,
			in:   record.Response{Text: "<think>x", FinishReason: "length", Usage: usage(5)},
			want: record.Response{Text: "<think>x", FinishReason: "length", Usage: usage(5)}},
		{name: "already applied", mode: Strip,
			in:   record.Response{Text: "Close with </think> here.", Reasoning: "t", ReasoningFormat: ThinkTags, RawText: "<think>t</think>Close with </think> here."},
			want: record.Response{Text: "Close with </think> here.", Reasoning: "t", ReasoningFormat: ThinkTags, RawText: "<think>t</think>Close with </think> here."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in
			if changed := Apply(tc.mode, &got, words{}); changed != tc.changed {
				t.Errorf("changed %v, want %v", changed, tc.changed)
			}
			if a, b := mustJSON(t, got), mustJSON(t, tc.want); a != b {
				t.Errorf("\n got %s\nwant %s", a, b)
			}
			again := got
			Apply(tc.mode, &again, words{})
			if a, b := mustJSON(t, again), mustJSON(t, got); a != b {
				t.Errorf("applied twice:\n got %s\nwant %s", a, b)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := record.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUnfinishedSaysWhatToDo(t *testing.T) {
	e := Unfinished(&record.Response{FinishReason: "length", ReasoningTokens: 812}, 1024)
	if e.Kind != KindUnfinished || !strings.Contains(e.Message, "max_tokens 1024") || !strings.Contains(e.Message, "a trace of 812 tokens") || !strings.Contains(e.Message, "--reasoning-budget") {
		t.Errorf("%+v", e)
	}
	e = Unfinished(&record.Response{FinishReason: "stop"}, 0)
	if e.Kind != KindUnfinished || !strings.Contains(e.Message, `finish_reason "stop"`) || !strings.Contains(e.Message, "stop sequence") {
		t.Errorf("%+v", e)
	}
}

// ApplyRecord rewrites only the response fields the rule sets, keeps the
// others (a user's own included) in place, fails a trace that never ended
// with the request's max_tokens in its message, and leaves checks (no text),
// failed records and records already seen alone.
func TestApplyRecord(t *testing.T) {
	cases := []struct {
		name, line, want, kind string
	}{
		{name: "a trace",
			line: `{"id":"a","response":{"text":"<think>x y</think>\n[1]","finish_reason":"stop","mine":1}}`,
			want: `{"id":"a","response":{"text":"[1]","finish_reason":"stop","mine":1,"reasoning":"x y","reasoning_format":"think_tags","reasoning_tokens":2,"reasoning_tokens_from":"words~","raw_text":"<think>x y</think>\n[1]"}}`},
		{name: "cut while thinking",
			line: `{"id":"b","request":{"max_tokens":64},"response":{"text":"<think>x y","finish_reason":"length"}}`,
			want: `{"id":"b","request":{"max_tokens":64},"response":{"text":"","finish_reason":"length","reasoning":"x y","reasoning_format":"think_tags","reasoning_tokens":2,"reasoning_tokens_from":"words~","reasoning_unfinished":true,"raw_text":"<think>x y"}}`,
			kind: KindUnfinished},
		{name: "no trace", line: `{"id":"c","response":{"text":"[1]","finish_reason":"stop"}}`, want: `{"id":"c","response":{"text":"[1]","finish_reason":"stop"}}`},
		{name: "a check", line: `{"id":"d#1","parent":"d","response":{"finish_reason":"length","usage":{"prompt_tokens":1,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":9}}}}`,
			want: `{"id":"d#1","parent":"d","response":{"finish_reason":"length","usage":{"prompt_tokens":1,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":9}}}}`},
		{name: "failed", line: `{"id":"e","response":{"text":"<think>x"},"error":{"stage":"infer-batch","kind":"timeout","message":"m"}}`,
			want: `{"id":"e","response":{"text":"<think>x"},"error":{"stage":"infer-batch","kind":"timeout","message":"m"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := record.Parse([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			re, err := ApplyRecord(rec, Strip, words{})
			if err != nil {
				t.Fatal(err)
			}
			if got := string(rec.AppendJSON(nil)); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			switch {
			case tc.kind == "" && re != nil:
				t.Errorf("error %+v, want none", re)
			case tc.kind != "" && (re == nil || re.Kind != tc.kind || !strings.Contains(re.Message, "max_tokens 64")):
				t.Errorf("error %+v, want %s naming max_tokens 64", re, tc.kind)
			}
			once := string(rec.AppendJSON(nil))
			if re, _ := ApplyRecord(rec, Strip, words{}); re != nil || string(rec.AppendJSON(nil)) != once {
				t.Errorf("applied twice: %s, %v", rec.AppendJSON(nil), re)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Strip, "strip": Strip, "keep": Keep, "opened": Opened} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, m, err)
		}
	}
	if _, err := ParseMode("off"); err == nil {
		t.Error("ParseMode(off): no error")
	}
}
