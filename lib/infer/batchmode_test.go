package infer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/batchapi"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// batchInput is n chat requests, a record an earlier stage failed, and a
// request that cannot be sent (no messages or prompt).
func batchInput(t *testing.T, n int, prompt bool) string {
	t.Helper()
	var b bytes.Buffer
	for i := range n {
		if prompt && i%3 == 0 {
			fmt.Fprintf(&b, `{"id":"p%03d","request":{"prompt":"complete number %d","max_tokens":12}}`+"\n", i, i)
			continue
		}
		fmt.Fprintf(&b, `{"id":"c%03d","request":{"messages":[{"role":"user","content":"question %d"}],"max_tokens":%d}}`+"\n", i, i, 4+i%20)
	}
	b.WriteString(`{"id":"failed","error":{"stage":"expand-templates","kind":"x","message":"y"}}` + "\n")
	b.WriteString(`{"id":"bad","request":{"input":"neither"}}` + "\n")
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// outcomes is what must be equal between an online run and a batch run:
// ids, order, the reply and the error kinds. Timings, attempts and the
// endpoint label differ by nature.
func outcomes(t *testing.T, recs []*record.Record) []string {
	t.Helper()
	var out []string
	for _, rec := range recs {
		var resp record.Response
		var re record.Error
		rec.Decode("response", &resp)
		rec.Decode("error", &re)
		out = append(out, fmt.Sprintf("%s model=%s text=%q finish=%s usage=%d/%d error=%s/%s", rec.ID(), rec.String("model"), resp.Text, resp.FinishReason,
			resp.Usage.PromptTokens, resp.Usage.CompletionTokens, re.Stage, re.Kind))
	}
	return out
}

func sameRuns(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d records, online run %d", what, len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("%s: record %d differs from the online run:\n online %s\n batch  %s", what, i, want[i], got[i])
		}
	}
}

// --batch-export, then the export run as a batch on llm-sim, then
// --batch-import: the same records as an online run (ids, order, replies,
// errors); an id whose result line is missing gets no_batch_result.
func TestBatchExportSimImportMatchesOnline(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	in := batchInput(t, 40, false)
	code, online, stderr := runBatch(t, nil, "--max-failures", "inf", "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", "4", in)
	if code != 0 {
		t.Fatalf("online: exit %d: %s", code, stderr)
	}
	want := outcomes(t, parseLines(t, online))

	code, export, stderr := runBatch(t, nil, "--batch-export", "--model", sim.DefaultModel, in)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	lines := bytes.Split(bytes.TrimSpace(export), []byte("\n"))
	if len(lines) != 40 {
		t.Fatalf("export: %d lines for 40 requests", len(lines))
	}
	var first batchapi.Input
	if err := json.Unmarshal(lines[0], &first); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.Unmarshal(first.Body, &body)
	if first.CustomID != "c000" || first.Method != "POST" || first.URL != batchapi.URLChat || body["model"] != sim.DefaultModel || body["stream"] != nil || body["max_tokens"] != 4.0 {
		t.Fatalf("export line: %s", lines[0])
	}

	// A batch answers whole: a request's stream is not exported.
	streamIn := filepath.Join(t.TempDir(), "stream.jsonl")
	os.WriteFile(streamIn, []byte(`{"id":"s","request":{"prompt":"p","stream":true,"stream_options":{"include_usage":true}}}`+"\n"), 0o644)
	if code, b, stderr := runBatch(t, nil, "--batch-export", "--model", "m", streamIn); code != 0 || string(b) != `{"custom_id":"s","method":"POST","url":"/v1/completions","body":{"model":"m","prompt":"p"}}`+"\n" {
		t.Fatalf("export of a streamed request: exit %d: %s %s", code, b, stderr)
	}

	dir := t.TempDir()
	reqs := filepath.Join(dir, "requests.jsonl")
	os.WriteFile(reqs, export, 0o644)
	outFile, errFile := runSimBatch(t, s, reqs, batchapi.URLChat, dir)
	code, imported, stderr := runBatch(t, nil, "--max-failures", "inf", "--batch-import", outFile, "--batch-import", errFile, "--model", sim.DefaultModel, in)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	sameRuns(t, "export → llm-sim batch → import", want, outcomes(t, parseLines(t, imported)))

	// An import stricter than the export (--max-model-len that every prompt
	// exceeds) keeps the answers the batch paid for, and says so.
	code, imported, stderr = runBatch(t, nil, "--max-failures", "inf", "--batch-import", outFile, "--batch-import", errFile, "--model", sim.DefaultModel, "--max-model-len", "20", in)
	if code != 0 || !strings.Contains(stderr, "answers are kept") {
		t.Fatalf("stricter import: exit %d: %s", code, stderr)
	}
	sameRuns(t, "import with a stricter --max-model-len", want, outcomes(t, parseLines(t, imported)))

	// Drop one result line: that id is reported, not skipped.
	b, _ := os.ReadFile(outFile)
	ls := bytes.SplitAfter(b, []byte("\n"))
	var cut bytes.Buffer
	for _, l := range ls {
		if !bytes.Contains(l, []byte(`"custom_id":"c007"`)) {
			cut.Write(l)
		}
	}
	os.WriteFile(outFile, cut.Bytes(), 0o644)
	code, imported, stderr = runBatch(t, nil, "--max-failures", "inf", "--batch-import", outFile, "--model", sim.DefaultModel, in)
	recs := parseLines(t, imported)
	if code != 0 || len(recs) != 42 || recs[7].ID() != "c007" || !recs[7].Errored() || !strings.Contains(string(recs[7].Raw("error")), KindNoBatchResult) {
		t.Fatalf("missing result: exit %d, %d records, c007 = %s; stderr %s", code, len(recs), recs[7].AppendJSON(nil), stderr)
	}
	if !strings.Contains(stderr, "without a batch result") {
		t.Fatalf("the missing result is not reported: %s", stderr)
	}
}

// runSimBatch uploads a request file to llm-sim, runs it as a batch and
// downloads the output and error files (empty when the batch has none).
func runSimBatch(t *testing.T, s *sim.Server, reqs, url, dir string) (outFile, errFile string) {
	t.Helper()
	ctx := context.Background()
	cl := &batchapi.Client{HTTP: oai.New(2, time.Second, "").HTTP, Base: s.BaseURL()}
	f, err := cl.Upload(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cl.Create(ctx, f.ID, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for !batchapi.Terminal(b.Status) {
		time.Sleep(10 * time.Millisecond)
		if b, err = cl.Get(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
	}
	if b.Status != batchapi.StatusCompleted {
		t.Fatalf("batch %s: %+v", b.Status, b.Errors)
	}
	outFile, errFile = filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "err.jsonl")
	for file, id := range map[string]*string{outFile: b.OutputFileID, errFile: b.ErrorFileID} {
		var buf bytes.Buffer
		if id != nil {
			if err := cl.Download(ctx, *id, &buf); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(file, buf.Bytes(), 0o644)
	}
	return outFile, errFile
}

// Result lines as vllm run-batch writes them: a success, a 400 for a
// too-long prompt (vLLM's error body), and a line with only an error.
func TestBatchImportVLLMLines(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","request":{"messages":[{"role":"user","content":"hi"}]}}
{"id":"b","request":{"messages":[{"role":"user","content":"long"}]}}
{"id":"c","request":{"prompt":"x"}}
`), 0o644)
	res := filepath.Join(t.TempDir(), "results.jsonl")
	os.WriteFile(res, []byte(`{"id":"vllm-1","custom_id":"b","response":{"status_code":400,"request_id":"vllm-batch-2","body":{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.","type":"BadRequestError","param":null,"code":400}},"error":null}
{"id":"vllm-0","custom_id":"a","response":{"status_code":200,"request_id":"vllm-batch-1","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"message":{"role":"assistant","content":"Hello.","reasoning_content":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}},"error":null}
{"id":"vllm-2","custom_id":"c","response":null,"error":"Internal server error: engine died"}
`), 0o644)
	code, out, stderr := runBatch(t, nil, "--max-failures", "inf", "--batch-import", res, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := outcomes(t, parseLines(t, out))
	want := []string{
		`a model=Qwen/Qwen2.5-7B-Instruct text="Hello." finish=stop usage=9/3 error=/`,
		`b model= text="" finish= usage=0/0 error=infer-batch/context_length`,
		`c model= text="" finish= usage=0/0 error=infer-batch/batch_error`,
	}
	sameRuns(t, "vLLM lines", want, got)
}

func TestBatchFlagUsage(t *testing.T) {
	in := batchInput(t, 2, false)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch-export", "--batch-api", "--base-url", "http://127.0.0.1:1/v1"}, "give one"},
		{[]string{"--batch-export"}, "--model"},
		{[]string{"--cancel-on-exit", "--base-url", "http://127.0.0.1:1/v1"}, "--cancel-on-exit needs --batch-api"},
		{[]string{"--batch-export", "--model", "m", "--resume-from", "x.jsonl"}, "--resume-from does not apply"},
		{[]string{"--batch-api", "--batch-max-bytes", "0", "--base-url", "http://127.0.0.1:1/v1"}, "--batch-max-bytes 0"},
	} {
		code, _, stderr := runBatch(t, nil, append(tc.args, in)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// --batch-api through llm-sim writes what an online run writes; chat and
// completions requests go to separate batches, each split at
// --batch-max-requests.
func TestBatchAPIMatchesOnline(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	in := batchInput(t, 45, true) // 15 completions, 30 chat
	code, online, stderr := runBatch(t, nil, "--max-failures", "inf", "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", "4", in)
	if code != 0 {
		t.Fatalf("online: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	code, _, stderr = runBatch(t, nil, "--max-failures", "inf", "--batch-api", "--batch-poll", "20ms", "--batch-max-requests", "12",
		"--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-o", out, in)
	if code != 0 {
		t.Fatalf("--batch-api: exit %d: %s", code, stderr)
	}
	sameRuns(t, "--batch-api", outcomes(t, parseLines(t, online)), outcomes(t, readRecords(t, out)))
	// 30 chat requests in batches of 12, 12, 6; 15 completions in 12, 3.
	if n := s.Stats().ByPath["/v1/batches"]; n != 5 {
		t.Fatalf("%d batches created, want 5", n)
	}
	if _, err := os.Stat(BatchStateName(out)); err == nil {
		t.Fatalf("a finished run left %s", BatchStateName(out))
	}
	if !strings.Contains(stderr, "status=completed") {
		t.Fatalf("no batch progress in the log: %s", stderr)
	}
}

// A run killed while it polls leaves the batch ids beside FILE.partial; the
// same command with --resume polls the same batches (none is created again)
// and writes every record; without --resume it refuses.
func TestBatchAPIKillResumesPolling(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.Latency = 30 * time.Millisecond
	opt.MaxConcurrency = 1 // 40 requests: about 1.2 s of batch
	s := startSim(t, opt)
	in := batchInput(t, 40, false)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"--max-failures", "inf", "--batch-api", "--batch-poll", "50ms", "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-o", out, in}
	cmd, stderr := childBatch(t, args...)
	state := BatchStateName(out)
	waitFor(t, "the batch state file", func() bool {
		b, _ := os.ReadFile(state)
		return bytes.Contains(b, []byte("batch_id"))
	})
	// A poll (GET /v1/batches/ID: llm-sim counts it as "other").
	waitFor(t, "a poll", func() bool { return s.Stats().ByPath["other"] >= 1 })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if s.Stats().ByPath["/v1/batches"] != 1 {
		t.Fatalf("batches created: %v; stderr %s", s.Stats().ByPath, stderr)
	}
	if code, _, stderr := runBatch(t, nil, args...); code != 2 || !strings.Contains(stderr, "--resume polls them") {
		t.Fatalf("without --resume: exit %d: %s", code, stderr)
	}
	code, _, errs := runBatch(t, nil, append([]string{"--resume"}, args...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	if n := s.Stats().ByPath["/v1/batches"]; n != 1 {
		t.Fatalf("the resumed run created %d batches in all, want the 1 it polled", n)
	}
	if n := s.Stats().ByPath["/v1/chat/completions"]; n != 40 {
		t.Fatalf("the server answered %d requests for 40", n)
	}
	recs := readRecords(t, out)
	if len(recs) != 42 || recs[0].ID() != "c000" || !recs[0].Has("response") || !strings.Contains(errs, "polling a batch the earlier run created") {
		t.Fatalf("%d records; stderr %s", len(recs), errs)
	}
	if _, err := os.Stat(state); err == nil {
		t.Fatalf("a finished run left %s", state)
	}
}

// SIGTERM with --cancel-on-exit cancels the batch at the provider.
func TestBatchAPICancelOnExit(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.Latency = 50 * time.Millisecond
	opt.MaxConcurrency = 1
	s := startSim(t, opt)
	in := batchInput(t, 40, false)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	cmd, stderr := childBatch(t, "--batch-api", "--cancel-on-exit", "--batch-poll", "50ms", "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-o", out, in)
	waitFor(t, "the batch state file", func() bool {
		b, _ := os.ReadFile(BatchStateName(out))
		return bytes.Contains(b, []byte("batch_id"))
	})
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if !strings.Contains(stderr.String(), "batch cancelled") {
		t.Fatalf("stderr: %s", stderr)
	}
	cl := &batchapi.Client{HTTP: oai.New(1, time.Second, "").HTTP, Base: s.BaseURL()}
	st, _ := readBatchState(BatchStateName(out))
	for _, b := range st {
		got, err := cl.Get(context.Background(), b.BatchID)
		if err != nil || (got.Status != batchapi.StatusCancelling && got.Status != batchapi.StatusCancelled) {
			t.Fatalf("batch %s: %v %v", b.BatchID, got.Status, err)
		}
	}
}

// --tokenizer server counts with the endpoint's tokenize API in the batch
// modes too; without an endpoint it is a usage error, not a silent estimate.
func TestBatchTokenizerServer(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","request":{"messages":[{"role":"user","content":"hi there"}]}}`+"\n"), 0o644)
	res := filepath.Join(t.TempDir(), "results.jsonl")
	os.WriteFile(res, []byte(`{"custom_id":"a","response":{"status_code":200,"body":{"model":"m","choices":[{"message":{"content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":2}}},"error":null}`+"\n"), 0o644)
	for _, args := range [][]string{{"--batch-export", "--model", "m"}, {"--batch-import", res}} {
		code, out, stderr := runBatch(t, nil, append(args, "--tokenizer", "server", in)...)
		if code != app.ExitUsage || len(out) != 0 || !strings.Contains(stderr, "--base-url") {
			t.Errorf("%v without an endpoint: exit %d: %s", args, code, stderr)
		}
	}
	s := startSim(t, sim.DefaultOptions())
	code, out, stderr := runBatch(t, nil, "--batch-import", res, "--tokenizer", "server", "--base-url", s.BaseURL(), in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var resp record.Response
	parseLines(t, out)[0].Decode("response", &resp)
	if resp.Tokenizer != TokenizerServer || resp.PromptTokensSent <= 0 || s.Stats().ByPath["/tokenize"] == 0 {
		t.Fatalf("counted %d by %q, /tokenize calls %v", resp.PromptTokensSent, resp.Tokenizer, s.Stats().ByPath)
	}
}

// --batch-export writes one file of request lines: -o DIR/ is a usage
// error that leaves the folder as it was, not a stdout export and a
// manifest that says complete.
func TestBatchExportToFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lake") + "/"
	code, stdout, stderr := runBatch(t, nil, "--batch-export", "--model", "m", "-o", dir, batchInput(t, 3, false))
	if code != 2 || !strings.Contains(stderr, "give -o FILE") || len(stdout) > 0 {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	if des, _ := os.ReadDir(dir); len(des) > 1 { // the lock file
		t.Fatalf("the folder holds %v", des)
	}
}

// An id that is not valid UTF-8 is bad input in every batch mode (exit 3,
// file:line) before anything is uploaded: its custom_id would come back as
// another id.
func TestBatchInvalidUTF8ID(t *testing.T) {
	bs := newBatchServer(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"ok","request":{"messages":[{"role":"user","content":"hi"}]}}`+"\n"+
		"{\"id\":\"bad\xff\",\"request\":{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}\n"), 0o644)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	os.WriteFile(results, []byte(`{"id":"x","custom_id":"ok","response":{"status_code":200,"body":{"choices":[{"message":{"content":"hello"},"finish_reason":"stop"}]}},"error":null}`+"\n"), 0o644)
	for _, mode := range [][]string{
		{"--batch-api", "--batch-poll", "20ms", "--base-url", bs.url},
		{"--batch-export"},
		{"--batch-import", results},
	} {
		code, _, stderr := runBatch(t, nil, append(append(mode, "--model", sim.DefaultModel), in)...)
		if code != 3 || !strings.Contains(stderr, "in.jsonl:2") || !strings.Contains(stderr, "not valid UTF-8") {
			t.Errorf("%v: exit %d: %s", mode, code, stderr)
		}
	}
	if bs.uploads.Load() != 0 || bs.created.Load() != 0 {
		t.Fatalf("%d uploads, %d batches for bad input", bs.uploads.Load(), bs.created.Load())
	}
}

// Batches are split by bytes as well as by count (--batch-max-bytes), and a
// request whose line alone is larger fails without being sent.
func TestBatchMaxBytes(t *testing.T) {
	bs := newBatchServer(t)
	var b bytes.Buffer
	for i := range 6 {
		fmt.Fprintf(&b, `{"id":"r%d","request":{"messages":[{"role":"user","content":"%s"}],"max_tokens":4}}`+"\n", i, strings.Repeat("word ", 100))
	}
	fmt.Fprintf(&b, `{"id":"huge","request":{"messages":[{"role":"user","content":"%s"}],"max_tokens":4}}`+"\n", strings.Repeat("word ", 1000))
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, b.Bytes(), 0o644)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	// About 640 bytes a line: two lines a batch.
	code, _, stderr := runBatch(t, nil, "--max-failures", "1", "--batch-api", "--batch-poll", "20ms", "--batch-max-bytes", "1400",
		"--base-url", bs.url, "--model", sim.DefaultModel, "-o", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readRecords(t, out)
	var re record.Error
	if len(recs) != 7 || recs[6].Decode("error", &re) != nil || !strings.Contains(re.Message, "--batch-max-bytes 1400") {
		t.Fatalf("%d records; the huge one: %s", len(recs), recs[len(recs)-1].AppendJSON(nil))
	}
	if c, got := bs.created.Load(), bs.completions(); c != 3 || got != 6 {
		t.Fatalf("%d batches, %d requests; want 3 and 6", c, got)
	}
}
