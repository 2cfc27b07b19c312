package infer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/tokens"
)

// catastrophic writes a tokenizer.json whose pre-tokenizer pattern
// backtracks exponentially on a run of a's not followed by a line end, and
// input records whose prompts are such runs.
func catastrophic(t *testing.T, n int) (tokenizer, input string) {
	t.Helper()
	dir := t.TempDir()
	tokenizer = filepath.Join(dir, "tokenizer.json")
	os.WriteFile(tokenizer, []byte(`{"added_tokens":[],"normalizer":null,
"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?:a+)+$"},"behavior":"Isolated","invert":false},
"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]}}`), 0o644)
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"r%d","request":{"messages":[{"role":"user","content":"%sb"}],"max_tokens":4}}`+"\n", i, strings.Repeat("a", 60))
	}
	input = filepath.Join(dir, "in.jsonl")
	os.WriteFile(input, []byte(b.String()), 0o644)
	return tokenizer, input
}

// A tokenizer.json whose pattern backtracks catastrophically stops the run
// at the time limit of one text, saying why: only the requests sent while
// the tokenizer was loading (counted in flight) are paid.
func TestTokenizerTimeLimit(t *testing.T) {
	old := tokens.TimeLimit
	tokens.TimeLimit = 200 * time.Millisecond
	defer func() { tokens.TimeLimit = old }()
	s := startSim(t, sim.DefaultOptions())
	tok, in := catastrophic(t, 3)
	code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--tokenizer", tok, "-j", "1", in)
	if code != 1 || !strings.Contains(stderr, "time limit") || !strings.Contains(stderr, "backtracks catastrophically") {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if n := s.Stats().ByPath["/v1/chat/completions"]; n >= 3 {
		t.Errorf("%d requests sent for 3 prompts that could not be counted", n)
	}
}

// SIGTERM ends a run whose prompts are being counted by such a pattern
// within --grace: the count stops when the requests' context ends, it does
// not hold the exit until the time limit (10 s a text) or for ever.
func TestSigtermStopsCounting(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	tok, in := catastrophic(t, 20)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	cmd, stderr := childBatch(t, "--base-url", s.BaseURL(), "--tokenizer", tok, "--grace", "1s", "-o", out, in)
	// The model is resolved right before the records are read and counted.
	waitFor(t, "the run to start", func() bool { return strings.Contains(stderr.String(), "model from /v1/models") })
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit after SIGTERM: %v; stderr: %s", err, stderr)
	}
	if strings.Contains(stderr.String(), "time limit") {
		t.Errorf("the run ended at the tokenizer's time limit, not at the signal: %s", stderr)
	}
}

// --api-key-file and --tokenizer refuse /dev/zero instead of reading it.
func TestKeyAndTokenizerFilesBounded(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	in := writeInput(t, 1, 4)
	for _, args := range [][]string{{"--api-key-file", "/dev/zero"}, {"--tokenizer", "/dev/zero"}} {
		code, _, stderr := runBatch(t, nil, append(append([]string{"--base-url", s.BaseURL()}, args...), in)...)
		if code != 2 || !strings.Contains(stderr, "a device") {
			t.Errorf("%v: exit %d; stderr: %s", args, code, stderr)
		}
	}
}
