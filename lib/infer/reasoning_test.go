package infer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// thinker answers every prompt as Qwen3 does without a reasoning parser:
// its trace first, in the text, naming a wrong answer.
type thinker struct{}

func (thinker) Name() string { return "thinker" }
func (thinker) Solve(req *sim.Request, _ sim.Params) (string, bool) {
	return "<think>\nThe IDs might be [1, 2]. No: only [7].\n</think>\n\n[7]", true
}

func responseOf(t *testing.T, rec *record.Record) record.Response {
	t.Helper()
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

// infer-batch writes the answer after a trace as the text, whole or
// streamed: the trace moves to response.reasoning, the text as received to
// raw_text, and the trace is counted with the run's tokenizer (the server
// counted none); --reasoning keep writes the text as received.
func TestRepliesStripTraces(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1, Solvers: []sim.Solver{thinker{}}})
	in := writeInput(t, 3, 64)
	const raw = "<think>\nThe IDs might be [1, 2]. No: only [7].\n</think>\n\n[7]"
	for _, args := range [][]string{nil, {"--stream"}} {
		code, out, stderr := runBatch(t, nil, append([]string{"--base-url", s.BaseURL()}, append(args, in)...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, rec := range parseLines(t, out) {
			resp := responseOf(t, rec)
			if resp.Text != "[7]" || resp.Reasoning != "The IDs might be [1, 2]. No: only [7]." || resp.RawText != raw ||
				resp.ReasoningFormat != reasoning.ThinkTags || resp.ReasoningTokens < 10 || resp.ReasoningTokensFrom != "o200k_base~" || resp.ReasoningUnfinished {
				t.Errorf("%v: %s", args, rec.AppendJSON(nil))
			}
		}
		if !strings.Contains(stderr, "reasoning_traces=3") {
			t.Errorf("%v: the summary does not count the traces:\n%s", args, stderr)
		}
	}
	code, out, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--reasoning", "keep", in)
	if code != 0 {
		t.Fatalf("keep: exit %d: %s", code, stderr)
	}
	for _, rec := range parseLines(t, out) {
		if resp := responseOf(t, rec); resp.Text != raw || resp.Reasoning != "" || resp.ReasoningFormat != "" {
			t.Errorf("keep: %s", rec.AppendJSON(nil))
		}
	}
}

// --batch-import applies the same rule to the replies of a Batch: gpt-oss
// harmony channels left in the text, a trace vLLM's parser split off
// (reasoning_content, with the server's count), and a reply cut while
// thinking, which fails with reasoning_unfinished.
func TestBatchImportStripsTraces(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","request":{"messages":[{"role":"user","content":"a"}],"max_tokens":100}}
{"id":"b","request":{"messages":[{"role":"user","content":"b"}],"max_tokens":100}}
{"id":"c","request":{"messages":[{"role":"user","content":"c"}],"max_tokens":100}}
`), 0o644)
	res := filepath.Join(dir, "results.jsonl")
	os.WriteFile(res, []byte(`{"id":"1","custom_id":"a","response":{"status_code":200,"body":{"model":"gpt-oss-20b","choices":[{"index":0,"message":{"role":"assistant","content":"<|channel|>analysis<|message|>We need JSON like {\"k\": 1}.<|end|><|start|>assistant<|channel|>final<|message|>{\"k\": 2}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":30}}},"error":null}
{"id":"2","custom_id":"b","response":{"status_code":200,"body":{"model":"gpt-oss-20b","choices":[{"index":0,"message":{"role":"assistant","content":"[3]","reasoning_content":"Maybe [4]."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":12,"completion_tokens_details":{"reasoning_tokens":8}}}},"error":null}
{"id":"3","custom_id":"c","response":{"status_code":200,"body":{"model":"gpt-oss-20b","choices":[{"index":0,"message":{"role":"assistant","content":"<|channel|>analysis<|message|>Still going and going"},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":100}}},"error":null}
`), 0o644)
	code, out, stderr := runBatch(t, nil, "--max-failures", "inf", "--batch-import", res, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := parseLines(t, out)
	if a := responseOf(t, recs[0]); a.Text != `{"k": 2}` || a.Reasoning != `We need JSON like {"k": 1}.` || a.ReasoningFormat != reasoning.Harmony || recs[0].Errored() {
		t.Errorf("a: %s", recs[0].AppendJSON(nil))
	}
	if b := responseOf(t, recs[1]); b.Text != "[3]" || b.Reasoning != "Maybe [4]." || b.ReasoningFormat != reasoning.Server || b.ReasoningTokens != 8 || b.ReasoningTokensFrom != reasoning.FromUsage || b.RawText != "" {
		t.Errorf("b: %s", recs[1].AppendJSON(nil))
	}
	var e record.Error
	recs[2].Decode("error", &e)
	if c := responseOf(t, recs[2]); c.Text != "" || !c.ReasoningUnfinished || e.Kind != reasoning.KindUnfinished || !strings.Contains(e.Message, "max_tokens 100") {
		t.Errorf("c: %s", recs[2].AppendJSON(nil))
	}
}
