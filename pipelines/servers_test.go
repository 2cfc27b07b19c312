package pipelines

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// The manners of real servers (issue 11), reproduced by llm-sim, met by the
// real programs with their default flags.

// sh runs a bash pipeline with the programs under test first on PATH and returns
// stdout, stderr and the exit code.
func sh(t *testing.T, script string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-o", "pipefail", "-c", script)
	cmd.Env = Env()
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("%s: %v", script, err)
	return "", "", 0
}

// records reads a JSONL file into records.
func records(t *testing.T, path string) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*record.Record
	s := bufio.NewScanner(f)
	s.Buffer(nil, 64<<20)
	for s.Scan() {
		r, err := record.Parse(s.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return out
}

func response(t *testing.T, r *record.Record) record.Response {
	t.Helper()
	var resp record.Response
	if !r.Has("response") {
		var e record.Error
		r.Decode("error", &e)
		t.Fatalf("record %s has no response: %+v", r.ID(), e)
	}
	if err := r.Decode("response", &resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

// lifbench4k writes LIFBench 4k requests to DIR/requests.jsonl and returns
// the shell snippet that reads them.
func lifbench4k(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "requests.jsonl")
	if _, stderr, code := sh(t, "gen-context lifbench --lengths 4k | expand-templates > "+p); code != 0 {
		t.Fatalf("requests: exit %d: %s", code, stderr)
	}
	return p
}

// inferLIFBench4k sends LIFBench 4k requests through infer-batch (default
// flags and extra) to an llm-sim started with simArgs, and returns the
// output file and infer-batch's stderr.
func inferLIFBench4k(t *testing.T, simArgs []string, extra string) (string, string) {
	t.Helper()
	url := StartSim(t, simArgs...)
	dir := t.TempDir()
	req := lifbench4k(t, dir)
	out := filepath.Join(dir, "out.jsonl")
	_, stderr, code := sh(t, "infer-batch -j 8 "+extra+" --base-url "+url+" -o "+out+" "+req)
	if code != 0 {
		t.Fatalf("infer-batch: exit %d: %s", code, stderr)
	}
	return out, stderr
}

// Ollama keeps the last 2,048 tokens of a longer prompt and says nothing:
// infer-batch with default flags flags every record, says so on stderr, and
// the report says how many of its records were cut.
func TestServerTruncationFlagged(t *testing.T) {
	replies, stderr := inferLIFBench4k(t, []string{"--max-model-len", "2048", "--overflow", "truncate"}, "")
	recs := records(t, replies)
	for _, r := range recs {
		resp := response(t, r)
		if !resp.ServerTruncated || resp.Tokenizer != "o200k_base~" || resp.Usage.PromptTokens > 2048 || resp.PromptTokensSent < 3000 {
			t.Fatalf("record %s: %+v", r.ID(), resp)
		}
	}
	if !strings.Contains(stderr, "the server cut the prompt") || !strings.Contains(stderr, "server_truncated="+strconv.Itoa(len(recs))) {
		t.Errorf("stderr does not count the truncated records:\n%s", stderr)
	}
	md, stderr, code := sh(t, "judge "+replies+" | aggregate-ifs")
	if code != 0 {
		t.Fatalf("judge | aggregate-ifs: exit %d: %s", code, stderr)
	}
	if want := "Server-truncated: " + strconv.Itoa(len(recs)) + " of " + strconv.Itoa(len(recs)) + " records"; !strings.Contains(md, want) {
		t.Errorf("the report does not say %q:\n%s", want, md)
	}
}

// vLLM refuses a prompt longer than its context with a 400: every record is
// a context_length error, and none is retried.
func TestServerOverflowError(t *testing.T) {
	out, _ := inferLIFBench4k(t, []string{"--max-model-len", "2048", "--overflow", "error"}, "--max-failures inf")
	for _, r := range records(t, out) {
		var e record.Error
		r.Decode("error", &e)
		if e.Kind != "context_length" || e.Attempts != 1 {
			t.Fatalf("record %s: error %+v, want one context_length attempt", r.ID(), e)
		}
	}
}

// Ollama's repetition guard cuts a reply with no finish_reason. At 30 % of
// requests, streamed or not, every record still ends with a proper reply.
func TestServerAbortedRepliesRetried(t *testing.T) {
	url := StartSim(t, "--fail-rate", "0.3", "--faults", "abort", "--seed", "3")
	dir := t.TempDir()
	req := filepath.Join(dir, "requests.jsonl")
	if _, stderr, code := sh(t, "gen-context lifbench --lengths 1k --scenarios list | expand-templates > "+req); code != 0 {
		t.Fatalf("requests: exit %d: %s", code, stderr)
	}
	for _, mode := range []string{"", "--stream"} {
		out := filepath.Join(dir, "out"+mode+".jsonl")
		stats := filepath.Join(dir, "stats"+mode+".json")
		_, stderr, code := sh(t, "infer-batch -j 8 --retry-base 5ms --max-retries 10 "+mode+" --stats "+stats+" --base-url "+url+" -o "+out+" "+req)
		if code != 0 {
			t.Fatalf("infer-batch %s: exit %d: %s", mode, code, stderr)
		}
		for _, r := range records(t, out) {
			resp := response(t, r)
			if resp.FinishReason != "stop" && resp.FinishReason != "length" {
				t.Fatalf("%s record %s: finish_reason %q", mode, r.ID(), resp.FinishReason)
			}
		}
		b, _ := os.ReadFile(stats)
		if !bytes.Contains(b, []byte(`"aborted":`)) {
			t.Errorf("%s: no aborted attempt in --stats (the fault never fired?): %s", mode, b)
		}
		if strings.Contains(stderr, "paused") {
			t.Errorf("%s: an aborted reply paused the endpoint:\n%s", mode, stderr)
		}
	}
}

// --tokenizer server counts each prompt as the server does: the count sent
// is the server's usage.prompt_tokens on every record, chat and raw
// completions; a server without a tokenize API is a clear exit 1.
func TestServerTokenizer(t *testing.T) {
	dir := t.TempDir()
	req := lifbench4k(t, dir)
	raw := filepath.Join(dir, "raw.jsonl")
	os.WriteFile(raw, []byte(`{"id":"raw","request":{"prompt":"Once upon a time, in a land far away, there lived","max_tokens":20}}`+"\n"), 0o644)
	for _, profile := range []string{"", "vllm", "llamacpp"} {
		url := StartSim(t, "--profile", profile)
		out := filepath.Join(dir, "out-"+profile+".jsonl")
		_, stderr, code := sh(t, "infer-batch -j 8 --tokenizer server --model llm-sim --base-url "+url+" -o "+out+" "+req+" "+raw)
		if code != 0 {
			t.Fatalf("profile %q: exit %d: %s", profile, code, stderr)
		}
		for _, r := range records(t, out) {
			resp := response(t, r)
			if resp.Tokenizer != "server" || resp.PromptTokensSent != resp.Usage.PromptTokens || resp.ServerTruncated {
				t.Fatalf("profile %q, record %s: sent %d by %q, server counted %d; stderr:\n%s", profile, r.ID(), resp.PromptTokensSent, resp.Tokenizer, resp.Usage.PromptTokens, stderr)
			}
		}
	}
	url := StartSim(t, "--profile", "ollama")
	_, stderr, code := sh(t, "infer-batch --tokenizer server --model llm-sim --base-url "+url+" "+raw)
	if code != 1 || !strings.Contains(stderr, "has no tokenize API") || !strings.Contains(stderr, "tokenizer FILE") {
		t.Errorf("a server without a tokenize API: exit %d: %s", code, stderr)
	}
}

// Ollama wraps a raw /v1/completions prompt in its chat template: infer-batch
// warns, once.
func TestServerCompletionsTemplateWarned(t *testing.T) {
	url := StartSim(t, "--profile", "ollama")
	raw := filepath.Join(t.TempDir(), "raw.jsonl")
	os.WriteFile(raw, []byte(`{"id":"a","request":{"prompt":"Once upon a time there was","max_tokens":20}}`+"\n"+
		`{"id":"b","request":{"prompt":"It was a dark and stormy","max_tokens":20}}`+"\n"), 0o644)
	_, stderr, code := sh(t, "infer-batch --model llm-sim --base-url "+url+" "+raw)
	if code != 0 || strings.Count(stderr, "applied a chat template") != 1 {
		t.Errorf("exit %d, want one warning:\n%s", code, stderr)
	}
}

// expand-templates --chat: LongGenBench's chat form for chat-only endpoints
// goes to /v1/chat/completions and is split and scored like the raw
// continuation (llm-sim at full skill writes every entry either way).
func TestLongGenBenchChatForm(t *testing.T) {
	url := StartSim(t)
	req, stderr, code := sh(t, "gen-context longgenbench --count 1 --scenarios menu | expand-templates --chat")
	if code != 0 || !strings.Contains(req, `"request":{"messages":[{"role":"system"`) || strings.Contains(req, `"request":{"prompt"`) {
		t.Fatalf("exit %d, not the chat form: %.300s %s", code, req, stderr)
	}
	md, stderr, code := sh(t, "gen-context longgenbench --count 1 --scenarios menu | expand-templates --chat"+
		" | infer-batch --base-url "+url+" | split-subtasks | judge --judge lexical | aggregate-ifs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(md, "| 1 | 100.000 [too few] | 100.000 [too few] | 100.000 [too few] |") {
		t.Errorf("the chat form does not score like the raw continuation:\n%s", md)
	}
	if strings.Contains(stderr, "applied a chat template") {
		t.Errorf("a chat request was taken for a templated completion:\n%s", stderr)
	}
}

// A benchmark split into checks (LongGenBench) reports the cut prompt once,
// as the record it is, in every table's note, and every row counts what
// came of it among what its n counts: here everything.
func TestServerTruncationSplitBench(t *testing.T) {
	url := StartSim(t, "--max-model-len", "200", "--overflow", "truncate")
	out, stderr, code := sh(t, "gen-context longgenbench --count 1 --scenarios menu | expand-templates | infer-batch --base-url "+url+
		" | split-subtasks | judge --judge lexical | aggregate-ifs --rows rows.jsonl && cat rows.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "Server-truncated: 1 of 1 records") {
		t.Errorf("the cut prompt is not reported once in the tables:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		var r struct {
			N          *int `json:"n"`
			NTruncated *int `json:"n_truncated"`
		}
		if !strings.HasPrefix(line, `{"bench"`) {
			continue
		}
		if err := record.Unmarshal([]byte(line), &r); err != nil || r.N == nil || r.NTruncated == nil || *r.NTruncated != *r.N {
			t.Errorf("a row does not count everything as cut: %s", line)
		}
	}
}

// --tokenizer FILE counts with a model's tokenizer.json, offline, and labels
// the count with the file; a file that is not a usable tokenizer.json is a
// usage error before anything is sent.
func TestTokenizerFile(t *testing.T) {
	url := StartSim(t)
	file, err := filepath.Abs("../lib/tokens/testdata/tiny-sentencepiece.json")
	if err != nil {
		t.Fatal(err)
	}
	in := `{"id":"a","request":{"messages":[{"role":"user","content":"the cat and the dog"}],"max_tokens":5}}`
	out, stderr, code := sh(t, "echo '"+in+"' | infer-batch --model llm-sim --tokenizer "+file+" --base-url "+url)
	rec, err := record.Parse([]byte(strings.TrimSpace(out)))
	if code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, stderr)
	}
	if resp := response(t, rec); resp.Tokenizer != "hf:tiny-sentencepiece.json" || resp.PromptTokensSent < 7 {
		t.Errorf("response %+v", resp)
	}
	for _, bad := range []string{"missing.json", "/etc/hostname"} {
		_, stderr, code := sh(t, "echo '"+in+"' | infer-batch --model llm-sim --tokenizer "+bad+" --base-url "+url)
		if code != 2 || !strings.Contains(stderr, "--tokenizer") {
			t.Errorf("--tokenizer %s: exit %d: %s", bad, code, stderr)
		}
	}
}

// TestRealServerCuts runs the cut checks of TestLongInsOllamaCutsFlagged
// against a real Ollama, when REALSERVER_URL names one (e.g.
// REALSERVER_URL=http://127.0.0.1:11434/v1 REALSERVER_MODEL=qwen2.5:0.5b):
// LongIns exams shorter and longer than the context the model is loaded
// with (/api/ps), sent with default flags; the truth is each prompt's whole
// count, asked of Ollama's own /api/chat with a context four times larger.
// Every record Ollama cut is flagged, and no other one.
func TestRealServerCuts(t *testing.T) {
	base := os.Getenv("REALSERVER_URL")
	if base == "" {
		t.Skip("REALSERVER_URL is not set: no real server to check against (e.g. REALSERVER_URL=http://127.0.0.1:11434/v1 REALSERVER_MODEL=qwen2.5:0.5b)")
	}
	base, err := oai.NormalizeBase(base)
	if err != nil {
		t.Fatal(err)
	}
	model := os.Getenv("REALSERVER_MODEL")
	ctx := context.Background()
	c := oai.New(1, 10*time.Second, os.Getenv("OPENAI_API_KEY"))
	defer c.Close()
	ms, err := c.Models(ctx, base, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if model == "" && len(ms) == 1 {
		model = ms[0].ID
	}
	if model == "" {
		t.Fatalf("%s serves %d models: give REALSERVER_MODEL", base, len(ms))
	}
	if srv := c.Identify(ctx, base, model, ms, time.Minute); !srv.Ollama() {
		t.Skipf("%s is %s: the real-server cut check is Ollama's", base, srv.Name())
	}
	// One request loads the model; /api/ps then says its context.
	dir := t.TempDir()
	if _, stderr, code := sh(t, `echo '{"id":"warm","request":{"messages":[{"role":"user","content":"Say yes."}],"max_tokens":2}}' | infer-batch --model `+model+` --base-url `+base); code != 0 {
		t.Fatalf("warming up: exit %d: %s", code, stderr)
	}
	ctxLen := c.LoadedContext(ctx, base, model, time.Minute)
	if ctxLen < 512 {
		t.Skipf("%s does not report the loaded model's context in /api/ps (an Ollama before context_length), or it is too short (%d)", base, ctxLen)
	}
	lengths := fmt.Sprintf("%d,%d,%d", ctxLen/2, ctxLen*9/10, ctxLen*5/4)
	req := filepath.Join(dir, "requests.jsonl")
	if _, stderr, code := sh(t, "gen-context longins --modes gist --lengths "+lengths+" | expand-templates --max-tokens 16 > "+req); code != 0 {
		t.Fatalf("requests: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "responses.jsonl")
	if _, stderr, code := sh(t, "infer-batch -j 2 --model "+model+" --base-url "+base+" -o "+out+" "+req); code != 0 {
		t.Fatalf("infer-batch: exit %d: %s", code, stderr)
	}
	requests := map[string]json.RawMessage{}
	for _, r := range readAll(t, req) {
		var q struct {
			Messages json.RawMessage `json:"messages"`
		}
		r.Decode("request", &q)
		requests[r.ID()] = q.Messages
	}
	cut, kept := 0, 0
	for _, r := range readAll(t, out) {
		resp := response(t, r)
		whole := ollamaPromptCount(t, base, model, requests[r.ID()], 4*ctxLen)
		truth := whole > ctxLen || whole+resp.Usage.CompletionTokens > ctxLen
		if resp.ServerTruncated != truth {
			t.Errorf("%s: server_truncated %v, but the prompt has %d tokens for a %d context (Ollama counted %d, reply %d; ifkit sent %d by %s, cut_check %s)",
				r.ID(), resp.ServerTruncated, whole, ctxLen, resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.PromptTokensSent, resp.Tokenizer, resp.CutCheck)
		}
		if truth {
			cut++
		} else {
			kept++
		}
	}
	t.Logf("%s, context %d: %d prompts cut, %d kept", model, ctxLen, cut, kept)
	if cut == 0 || kept == 0 {
		t.Errorf("%d prompts cut, %d kept: the lengths do not bracket the context, the test shows nothing", cut, kept)
	}
}

// ollamaPromptCount is Ollama's count of a chat prompt with a context of
// numCtx: its native /api/chat, one token generated.
func ollamaPromptCount(t *testing.T, base, model string, messages json.RawMessage, numCtx int) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": model, "messages": messages, "stream": false, "options": map[string]int{"num_ctx": numCtx, "num_predict": 1}})
	resp, err := http.Post(oai.Root(base)+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		PromptEvalCount int `json:"prompt_eval_count"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.PromptEvalCount == 0 {
		t.Fatalf("/api/chat: %v, %d prompt tokens", err, v.PromptEvalCount)
	}
	return v.PromptEvalCount
}
