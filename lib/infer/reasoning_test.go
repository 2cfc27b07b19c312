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

// endless thinks past any max_tokens a test gives it.
type endless struct{}

func (endless) Name() string { return "endless" }
func (endless) Solve(req *sim.Request, _ sim.Params) (string, bool) {
	return "<think>\n" + strings.Repeat("Let me consider the keywords once more. ", 40) + "\n</think>\n\n[7]", true
}

// A reply cut while the model was still thinking fails with
// reasoning_unfinished, the summary counts it apart and says to raise
// max_tokens, and the cache never keeps it: the next run asks again. A
// reply kept by --reasoning keep is cached as received, and a run that
// strips takes it from the cache and fails it the same way.
func TestUnfinishedTracesAreNeverCached(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1, Solvers: []sim.Solver{endless{}}})
	dir, tmp := t.TempDir(), t.TempDir()
	in := writeInput(t, 4, 32)
	run := func(name string, args ...string) ([]*record.Record, Summary, string) {
		t.Helper()
		out, stats := filepath.Join(tmp, name+".jsonl"), filepath.Join(tmp, name+".stats.json")
		code, _, stderr := runBatch(t, nil, append([]string{"--base-url", s.BaseURL(), "--cache", dir, "--max-failures", "inf", "--stats", stats, "-o", out}, append(args, in)...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		return readRecords(t, out), readStats(t, stats), stderr
	}
	for i, name := range []string{"first", "second"} {
		recs, st, stderr := run(name)
		if n := completions(s); n != int64(4*(i+1)) {
			t.Fatalf("%s run: %d requests in all, want %d: an unfinished reply came from the cache", name, n, 4*(i+1))
		}
		for _, rec := range recs {
			var e record.Error
			rec.Decode("error", &e)
			if resp := responseOf(t, rec); e.Kind != reasoning.KindUnfinished || resp.Text != "" || !resp.ReasoningUnfinished || resp.Cached {
				t.Errorf("%s: %s", name, rec.AppendJSON(nil))
			}
		}
		if st.Records.FailedByKind[reasoning.KindUnfinished] != 4 || st.Records.OK != 0 || st.Reasoning == nil || st.Reasoning.Unfinished != 4 || st.Cache.Stored != 0 {
			t.Errorf("%s: stats %+v %+v %+v", name, st.Records, st.Reasoning, st.Cache)
		}
		if !strings.Contains(stderr, "kind=reasoning_unfinished") || !strings.Contains(stderr, "raise max_tokens") {
			t.Errorf("%s: the summary does not count the unfinished traces apart or say what to do:\n%s", name, stderr)
		}
	}
	recs, st, _ := run("keep", "--reasoning", "keep")
	if st.Cache.Stored != 4 || recs[0].Errored() {
		t.Fatalf("keep: stored %d; %s", st.Cache.Stored, recs[0].AppendJSON(nil))
	}
	recs, _, _ = run("strip again")
	if n := completions(s); n != 12 {
		t.Errorf("%d requests in all, want 12: the replies kept raw were not taken from the cache", n)
	}
	for _, rec := range recs {
		if resp := responseOf(t, rec); !resp.Cached || !resp.ReasoningUnfinished || !rec.Errored() {
			t.Errorf("strip after keep: %s", rec.AppendJSON(nil))
		}
	}
}
