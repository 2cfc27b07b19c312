package pipelines

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
	if !strings.Contains(stderr, "it truncated the prompt") || !strings.Contains(stderr, "server_truncated="+strconv.Itoa(len(recs))) {
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
// as the record it is, in every table and in n_truncated.
func TestServerTruncationSplitBench(t *testing.T) {
	url := StartSim(t, "--max-model-len", "200", "--overflow", "truncate")
	out, stderr, code := sh(t, "gen-context longgenbench --count 1 --scenarios menu | expand-templates | infer-batch --base-url "+url+
		" | split-subtasks | judge --judge lexical | aggregate-ifs --rows rows.jsonl && cat rows.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "Server-truncated: 1 of 1 records") || !strings.Contains(out, `"n_truncated":1`) || strings.Contains(out, `"n_truncated":0`) {
		t.Errorf("the cut prompt is not reported once everywhere:\n%s", out)
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
