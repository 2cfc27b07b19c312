package eifbench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

func expandOne(t *testing.T, opt expand.Options, item *record.Record) []*record.Record {
	t.Helper()
	e, err := NewExpander(opt)
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.Record
	if err := e.Expand(item, func(r *record.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func userMessage(t *testing.T, rec *record.Record) string {
	t.Helper()
	var req expand.ChatRequest
	if err := rec.Decode("request", &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("messages %+v, want system + user", req.Messages)
	}
	return req.Messages[1].Content
}

func TestExpandShowsEverything(t *testing.T) {
	for _, item := range collect(t, GenOptions{}) {
		reqs := expandOne(t, expand.Options{}, item)
		if len(reqs) != 1 || reqs[0].ID() != item.ID() {
			t.Fatalf("%s: %d requests, want one with the item's id", item.ID(), len(reqs))
		}
		task, _ := taskFromItem(item)
		msg := userMessage(t, reqs[0])
		if !strings.Contains(msg, task.Input) {
			t.Errorf("%s: the input is not in the prompt", item.ID())
		}
		for i, s := range task.Subs {
			if !strings.Contains(msg, fmt.Sprintf("Sub-instruction %d: %s", i+1, s.Instruction)) {
				t.Errorf("%s: sub-instruction %d missing", item.ID(), i+1)
			}
			for _, c := range s.Constraints {
				if !strings.Contains(msg, c) {
					t.Errorf("%s: constraint %q missing", item.ID(), c)
				}
			}
		}
		var g itemGold
		reqs[0].Decode("gold", &g)
		if g.Input != task.Input || len(g.Subs) != len(task.Subs) {
			t.Errorf("%s: gold is not self-contained: %+v", item.ID(), g)
		}
	}
}

func TestExpandFlags(t *testing.T) {
	item := collect(t, GenOptions{})[0]
	temp, maxTok := 0.7, 1000
	var req expand.ChatRequest
	expandOne(t, expand.Options{}, item)[0].Decode("request", &req)
	if *req.Temperature != 0 || *req.MaxTokens != defaultMaxTokens {
		t.Errorf("defaults: temperature %v max_tokens %v", *req.Temperature, *req.MaxTokens)
	}
	expandOne(t, expand.Options{Temperature: &temp, MaxTokens: &maxTok}, item)[0].Decode("request", &req)
	if *req.Temperature != temp || *req.MaxTokens != maxTok {
		t.Errorf("overrides: temperature %v max_tokens %v", *req.Temperature, *req.MaxTokens)
	}
}

// The official code splits prompts over 8,192 characters in two requests
// and keeps only the first answer. Here a long task stays one whole prompt.
func TestLongPromptKeptWhole(t *testing.T) {
	task := &Task{ID: "eifbench-plain_text-99", Subset: PlainText, Input: strings.Repeat("A long paragraph of source material. ", 200), Source: "test"}
	for i := 0; i < 12; i++ {
		s := SubInstruction{Key: fmt.Sprintf("sub_instruction_%d", i), Instruction: fmt.Sprintf("Do task number %d.", i)}
		for j := 0; j < 10; j++ {
			s.Constraints = append(s.Constraints, fmt.Sprintf("Constraint %d of task %d must hold in full.", j, i))
		}
		task.Subs = append(task.Subs, s)
	}
	reqs := expandOne(t, expand.Options{}, task.Item())
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	msg := userMessage(t, reqs[0])
	if len(msg) <= 8192 {
		t.Fatalf("the test prompt has %d characters; it must exceed 8,192", len(msg))
	}
	if msg != Prompt(task) {
		t.Error("the request's prompt differs from the whole prompt")
	}
	for _, want := range []string{"Sub-instruction 12: Do task number 11.", "Constraint 9 of task 11 must hold in full.", task.Input[len(task.Input)-100:]} {
		if !strings.Contains(msg, want) {
			t.Errorf("the prompt lost %q", want)
		}
	}
}

func TestPromptFoldsLines(t *testing.T) {
	task := &Task{Subset: Dyadic, Input: "x", Subs: []SubInstruction{{Key: "s_0", Instruction: "two\nlines", Constraints: []string{"a\n  b", "c"}}}}
	subs, ok := parsePrompt(Prompt(task))
	if !ok || len(subs) != 1 || subs[0].instruction != "two lines" || strings.Join(subs[0].constraints, "|") != "a b|c" {
		t.Errorf("parsePrompt(Prompt) = %+v, %v", subs, ok)
	}
}
