package infer

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/testbin"
)

// batchTool is infer-batch as tools/infer-batch wires it.
var batchTool = app.Tool{Name: "infer-batch", ArgsUsage: "[FILE...]", Flags: Flags(""), Action: Batch}

const childEnv = "IFKIT_INFER_TEST_CHILD"

// TestMain lets a test re-execute this binary as infer-batch (or, with
// childEnv=judge, as judgeTool), to kill it.
func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "1":
		app.Main(batchTool)
	case "judge":
		app.Main(judgeTool(new(Options), nil))
	}
	os.Exit(m.Run())
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runBatch runs infer-batch in this process; stdout goes to a file.
func runBatch(t testing.TB, env map[string]string, args ...string) (code int, stdout []byte, stderr string) {
	t.Helper()
	return runTool(t, batchTool, env, args...)
}

// waitsTool is infer-batch that reports each retry's back-off to waited
// before it sleeps it.
func waitsTool(waited func(time.Duration)) app.Tool {
	t := batchTool
	t.Action = func(r *app.Run) error {
		opt, err := OptionsFromFlags(r, "")
		if err != nil {
			return err
		}
		opt.retryWait = func(ctx context.Context, d time.Duration) error {
			waited(d)
			return sleep(ctx, d)
		}
		return Process(r, opt, batchRequest, batchApply)
	}
	return t
}

// runTool runs a tool in this process; stdout goes to a file.
func runTool(t testing.TB, tool app.Tool, env map[string]string, args ...string) (code int, stdout []byte, stderr string) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errb lockedBuf
	code = app.RunTool(tool, append([]string{"infer-batch"}, args...), app.Env{
		Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	stdout, _ = os.ReadFile(out.Name())
	return code, stdout, errb.String()
}

func startSim(t *testing.T, o sim.Options) *sim.Server {
	t.Helper()
	s := sim.New(o)
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// writeInput writes n chat requests with ids r00000, r00001, ...
func writeInput(t *testing.T, n int, maxTokens int) string {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"r%05d","meta":{"k":%d},"request":{"messages":[{"role":"user","content":"question number %d"}],"max_tokens":%d}}`+"\n", i, i, i, maxTokens)
	}
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readRecords reads an output (any compression) and fails on a torn one.
func readRecords(t *testing.T, path string) []*record.Record {
	t.Helper()
	in, err := stream.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var recs []*record.Record
	for {
		line, _, err := in.Next()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: %v", path, err)
			}
			return recs
		}
		rec, err := record.Parse(line)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, rec)
	}
}

func parseLines(t *testing.T, b []byte) []*record.Record {
	t.Helper()
	var recs []*record.Record
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		rec, err := record.Parse(line)
		if err != nil {
			t.Fatalf("bad output line %q: %v", line, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// exactlyOnce checks that the records are r00000..r(n-1), each once, and
// counts those with a response and with an error.
func exactlyOnce(t *testing.T, recs []*record.Record, n int) (ok, failed int) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.ID()]++
		switch {
		case r.Has("response") && !r.Has("error"):
			ok++
		case r.Has("error"):
			failed++
		default:
			t.Fatalf("record %s has neither response nor error: %s", r.ID(), r.AppendJSON(nil))
		}
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("r%05d", i)
		if seen[id] != 1 {
			t.Fatalf("id %s appears %d times", id, seen[id])
		}
	}
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	return ok, failed
}

// The first test: 10,000 records, 20% transient faults of every kind.
func TestTransientFaults10k(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10,000 records through 2,000 faults (make test runs it)")
	}
	const n, key = 10000, "sk-ifkit-test-2f9c1e77"
	opt := sim.DefaultOptions()
	opt.RetryAfter = 80 * time.Millisecond
	opt.StallFor = 3 * time.Second
	opt.FaultPlan = func(seq uint64, req *sim.Request) sim.Fault {
		rng := rand.New(rand.NewPCG(7, seq))
		if rng.Float64() < 0.2 {
			return sim.FaultKinds[rng.IntN(len(sim.FaultKinds))]
		}
		return sim.NoFault
	}
	// Every back-off the engine sleeps, by length: a Retry-After wait is
	// exactly 80 ms, a jittered one at most --retry-max-wait (40 ms).
	var wmu sync.Mutex
	waits := map[time.Duration]int64{}
	tool := waitsTool(func(d time.Duration) {
		if d > 40*time.Millisecond {
			wmu.Lock()
			waits[d]++
			wmu.Unlock()
		}
	})
	s := startSim(t, opt)
	in := writeInput(t, n, 8)
	dir := t.TempDir()
	out, statsFile := filepath.Join(dir, "out.jsonl.zst"), filepath.Join(dir, "stats.json")
	code, stdout, stderr := runTool(t, tool, map[string]string{"OPENAI_API_KEY": key},
		"--base-url", s.BaseURL(), "-j", "64", "--retry-base", "5ms", "--retry-max-wait", "40ms",
		"--timeout-first-byte", "250ms", "--max-failures", "0.1%", "--stats", statsFile, "-o", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readRecords(t, out)
	ok, failed := exactlyOnce(t, recs, n)
	if ok < n*999/1000 {
		t.Fatalf("%d of %d answered (%d errors), want at least 99.9%%", ok, n, failed)
	}
	for i, r := range recs {
		if want := fmt.Sprintf("r%05d", i); r.ID() != want {
			t.Fatalf("output position %d holds %s: not in input order", i, r.ID())
		}
		if r.Has("error") {
			var e record.Error
			r.Decode("error", &e)
			// Six tries; an attempt made while the endpoint looked down (a
			// loaded machine can string enough faults together) is held,
			// not burned, so there may be more attempts than tries.
			if e.Stage != "infer-batch" || e.Attempts < 6 || e.Kind == "" {
				t.Fatalf("error record %s: %+v", r.ID(), e)
			}
		} else if !strings.Contains(string(r.Raw("meta")), fmt.Sprintf(`"k":%d`, i)) || r.String("model") != sim.DefaultModel {
			t.Fatalf("record %s lost a field: %s", r.ID(), r.AppendJSON(nil))
		}
	}
	st := s.Stats()
	if st.Faults[sim.FaultStall] == 0 || st.Faults[sim.FaultReset] == 0 || st.Faults[sim.FaultTruncate] == 0 {
		t.Fatalf("fault mix not exercised: %v", st.Faults)
	}
	statsText, err := os.ReadFile(statsFile)
	if err != nil {
		t.Fatal(err)
	}
	var sum Summary
	if err := record.Unmarshal(statsText, &sum); err != nil {
		t.Fatal(err)
	}
	// Retry-After: every 429 and 503 the engine received (each carries an
	// 80 ms Retry-After) and retried was followed by a wait of exactly 80
	// ms, and no other wait was that long. (Counted where the engine
	// decides: the server's clock cannot tell a retry from an attempt the
	// client had already given up on that reached the handler late.)
	retried := sum.Requests.FailedByHTTP["429"] + sum.Requests.FailedByHTTP["503"]
	for _, r := range recs {
		var e record.Error
		if r.Decode("error", &e) == nil && (e.Status == 429 || e.Status == 503) {
			retried-- // its last attempt was not retried
		}
	}
	wmu.Lock()
	if waits[opt.RetryAfter] != retried || len(waits) > 1 {
		t.Fatalf("back-offs over 40 ms: %v; want %d of %v, one per retried 429 or 503", waits, retried, opt.RetryAfter)
	}
	wmu.Unlock()
	if sum.Requests.FailedByHTTP["429"] < 100 {
		t.Fatalf("only %d 429s: the fault plan did not bite", sum.Requests.FailedByHTTP["429"])
	}
	if sum.Concurrency.LowestLimit >= 64 {
		t.Fatalf("429s did not lower the concurrency limit: %+v", sum.Concurrency)
	}
	// Every request sent reached the server, except those a timeout or a
	// network error ended before its handler ran (on a loaded machine a
	// few do).
	seenByServer := st.ByPath["/v1/chat/completions"]
	unseen := sum.Requests.Sent - seenByServer
	if sum.Records.OK != int64(ok) || unseen < 0 || unseen > sum.Requests.FailedByKind["timeout"]+sum.Requests.FailedByKind["network"] || sum.LatencyMS == nil || sum.LatencyMS.P99 < sum.LatencyMS.P50 {
		t.Fatalf("stats disagree: %s (server saw %d)", statsText, st.ByPath["/v1/chat/completions"])
	}
	outRaw, _ := os.ReadFile(out)
	for name, text := range map[string]string{"stdout": string(stdout), "stderr": stderr, "stats": string(statsText), "output": string(outRaw)} {
		if strings.Contains(text, key) {
			t.Fatalf("the API key appears in %s", name)
		}
	}
	if _, err := os.Stat(journalName(out)); !os.IsNotExist(err) {
		t.Fatalf("journal left behind: %v", err)
	}
}

// childBatch starts this test binary as infer-batch.
func childBatch(t *testing.T, args ...string) (*exec.Cmd, *lockedBuf) {
	t.Helper()
	return childTool(t, "1", args...)
}

// childTool starts this test binary as the tool TestMain names mode.
func childTool(t *testing.T, mode string, args ...string) (*exec.Cmd, *lockedBuf) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	var errb lockedBuf
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &errb
}

// journalLines reads the complete lines of a killed run's journal (its
// last frame may be torn).
func journalLines(t *testing.T, path string) []string {
	t.Helper()
	in, err := stream.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var lines []string
	for {
		line, _, err := in.Next()
		if err != nil {
			return lines
		}
		lines = append(lines, string(line))
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// kill -9 in the middle of a run, then resume: every id once, and the server
// answered at most n + j requests in all. The second case kills the resumed
// run too (n + 2j: each kill loses at most the j answers in flight).
func TestKill9Resume(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kill -9 trials over 10,000 records (make test runs them)")
	}
	const n, j = 10000, 16
	for _, kills := range [][]int64{{n / 3}, {n / 4, n * 3 / 5}} {
		t.Run(fmt.Sprintf("%d kills", len(kills)), func(t *testing.T) {
			opt := sim.DefaultOptions()
			opt.Latency = 3 * time.Millisecond
			s := startSim(t, opt)
			in := writeInput(t, n, 8)
			out := filepath.Join(t.TempDir(), "out.jsonl.zst")
			args := []string{"--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", fmt.Sprint(j), "--resume", "-o", out, in}
			sent := func() int64 { return s.Stats().ByPath["/v1/chat/completions"] }
			for _, at := range kills {
				cmd, stderr := childBatch(t, args...)
				waitFor(t, fmt.Sprintf("%d requests", at), func() bool { return sent() >= at })
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				if _, err := os.Stat(out); err == nil {
					t.Fatalf("a killed run left a complete-looking %s; stderr: %s", out, stderr)
				}
				// The journal is compressed, and holds answers with the
				// fingerprint of their request, not the requests again.
				if b, err := os.ReadFile(journalName(out)); err != nil || !bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
					t.Fatalf("the killed run's journal is not zstd (%v)", err)
				}
				lines := journalLines(t, journalName(out))
				if len(lines) == 0 || !strings.Contains(lines[0], `"response":`) || !strings.Contains(lines[0], `"`+journalFP+`":`) || strings.Contains(lines[0], `"request":`) {
					t.Fatalf("journal line %q: want the answer and the request's fingerprint, not the request", lines)
				}
			}
			code, _, stderr := runBatch(t, nil, args...)
			if code != 0 {
				t.Fatalf("resume: exit %d: %s", code, stderr)
			}
			recs := readRecords(t, out)
			if ok, _ := exactlyOnce(t, recs, n); ok != n {
				t.Fatalf("%d answered of %d", ok, n)
			}
			for _, r := range recs {
				if !r.Has("request") || !r.Has("model") {
					t.Fatalf("a record resumed from the journal is not whole: %s", r.AppendJSON(nil))
				}
			}
			limit := int64(n + j*len(kills))
			if total := sent(); total > limit {
				t.Fatalf("the server answered %d requests for %d records, more than %d", total, n, limit)
			} else {
				t.Logf("server requests: %d for %d records (%d kills, -j %d)", total, n, len(kills), j)
			}
			if left, _ := filepath.Glob(stream.PartialName(out) + "*"); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// SIGTERM: requests in flight finish within --grace and are written; the
// resumed run sends only the rest, so no request is ever repeated.
func TestSigtermDrains(t *testing.T) {
	const n = 60
	opt := sim.DefaultOptions()
	opt.Latency = 150 * time.Millisecond
	s := startSim(t, opt)
	in := writeInput(t, n, 8)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"--base-url", s.BaseURL(), "-j", "8", "--grace", "20s", "--resume", "-o", out, in}
	sent := func() int64 { return s.Stats().ByPath["/v1/chat/completions"] }
	cmd, stderr := childBatch(t, args...)
	waitFor(t, "the first requests", func() bool { return sent() >= 12 })
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit after SIGTERM: %v; stderr: %s", err, stderr)
	}
	partial := readRecords(t, stream.PartialName(out))
	if int64(len(partial)) != sent() {
		t.Fatalf("after the drain %d records were written for %d requests sent", len(partial), sent())
	}
	code, _, errText := runBatch(t, nil, args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errText)
	}
	exactlyOnce(t, readRecords(t, out), n)
	if sent() != n {
		t.Fatalf("%d requests for %d records", sent(), n)
	}
}

func TestNoRetryOn400AndLengthKept(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	p := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(p, []byte(`{"id":"bad","request":{"messages":[{"role":"user","content":"x"}],"max_tokens":"many"}}
{"id":"cut","request":{"messages":[{"role":"user","content":"tell me a long story"}],"max_tokens":3}}
{"id":"comp","request":{"prompt":"Once upon a time","max_tokens":2}}
{"id":"upstream","error":{"stage":"gen-context","kind":"x","message":"failed earlier"}}
`), 0o644)
	code, stdout, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--max-failures", "1", "--stream", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := parseLines(t, stdout)
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	var e record.Error
	recs[0].Decode("error", &e)
	if e.Kind != "bad_request" || e.Status != 400 || e.Attempts != 1 {
		t.Fatalf("400: %+v", e)
	}
	for _, r := range recs[1:3] {
		var resp record.Response
		r.Decode("response", &resp)
		if resp.FinishReason != "length" || resp.Attempts != 1 || resp.Usage.CompletionTokens != int(maxTokensOf(t, string(r.Raw("request")))) || resp.TTFTMS <= 0 {
			t.Fatalf("%s: %+v", r.ID(), resp)
		}
	}
	if string(recs[3].Raw("error")) != `{"stage":"gen-context","kind":"x","message":"failed earlier"}` || recs[3].Has("response") {
		t.Fatalf("upstream error not passed through: %s", recs[3].AppendJSON(nil))
	}
	st := s.Stats()
	if st.ByPath["/v1/chat/completions"] != 2 || st.ByPath["/v1/completions"] != 1 {
		t.Fatalf("requests: %v (a 400 must not be retried)", st.ByPath)
	}
}

// maxTokensOf reads max_tokens out of a request.
func maxTokensOf(t *testing.T, req string) int64 {
	var v struct {
		MaxTokens int64 `json:"max_tokens"`
	}
	if err := record.Unmarshal([]byte(req), &v); err != nil {
		t.Fatal(err)
	}
	return v.MaxTokens
}

func TestDownEndpointAmongThree(t *testing.T) {
	a, b := startSim(t, sim.DefaultOptions()), startSim(t, sim.DefaultOptions())
	down := testbin.RefusedURL(t) + "/v1"
	const n = 400
	in := writeInput(t, n, 4)
	statsFile := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, stderr := runBatch(t, nil, "--base-url", a.BaseURL()+","+down, "--base-url", b.BaseURL(),
		"--model", sim.DefaultModel, "-j", "8", "--retry-base", "1ms", "--stats", statsFile, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if ok, _ := exactlyOnce(t, parseLines(t, stdout), n); ok != n {
		t.Fatalf("%d of %d answered", ok, n)
	}
	var sum Summary
	text, _ := os.ReadFile(statsFile)
	record.Unmarshal(text, &sum)
	for _, ep := range sum.Endpoints {
		if ep.URL == down && (ep.Paused == 0 || ep.Requests > n/4) {
			t.Fatalf("down endpoint not paused: %+v", ep)
		}
	}
	if a.Stats().OK == 0 || b.Stats().OK == 0 {
		t.Fatal("load not spread over the live endpoints")
	}
}

func TestRetryErrorsResumeFrom(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	in := writeInput(t, 5, 4)
	prev := filepath.Join(t.TempDir(), "prev.jsonl")
	// r00000 answered, r00001 failed for a while (a 5xx: transient, sent again
	// anyway), r00003 failed for good (404: kept unless --retry-errors),
	// r00002 torn (a killed writer); r00004 absent.
	os.WriteFile(prev, []byte(`{"id":"r00000","response":{"text":"old"}}
{"id":"r00001","error":{"stage":"infer-batch","kind":"server_error","status":503,"message":"x","attempts":6}}
{"id":"r00003","error":{"stage":"infer-batch","kind":"not_found","status":404,"message":"no such model","attempts":1}}
{"id":"r00002","resp`), 0o644)
	for _, tt := range []struct {
		retry bool
		sent  int64
	}{{false, 3}, {true, 4}} {
		before := s.Stats().ByPath["/v1/chat/completions"]
		args := []string{"--base-url", s.BaseURL(), "--unordered", "--max-failures", "inf", "--resume-from", prev}
		if tt.retry {
			args = append(args, "--retry-errors")
		}
		code, stdout, stderr := runBatch(t, nil, append(args, in)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		recs := parseLines(t, stdout)
		ok, failed := exactlyOnce(t, recs, 5)
		if got := s.Stats().ByPath["/v1/chat/completions"] - before; got != tt.sent {
			t.Fatalf("retry-errors=%v: %d requests, want %d", tt.retry, got, tt.sent)
		}
		if tt.retry != (failed == 0) || ok+failed != 5 {
			t.Fatalf("retry-errors=%v: %d ok, %d failed", tt.retry, ok, failed)
		}
		if recs[0].ID() != "r00000" || !strings.Contains(string(recs[0].Raw("response")), "old") {
			t.Fatalf("resumed record not in its input position: %s", recs[0].AppendJSON(nil))
		}
	}
}

func TestPreflightEndToEnd(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	long := strings.Repeat("A sentence of the long context. ", 300)
	p := filepath.Join(t.TempDir(), "in.jsonl")
	b, _ := record.Marshal(map[string]any{"id": "long", "request": map[string]any{"messages": []map[string]string{{"role": "user", "content": long + "\n\nInstruction: say ok"}}, "max_tokens": 10}})
	os.WriteFile(p, append(b, '\n'), 0o644)

	code, stdout, _ := runBatch(t, nil, "--base-url", s.BaseURL(), "--max-model-len", "500", "--max-failures", "inf", p)
	recs := parseLines(t, stdout)
	var e record.Error
	recs[0].Decode("error", &e)
	if sent := s.Stats().ByPath["/v1/chat/completions"]; code != 0 || e.Kind != "context_length" || sent > 0 {
		t.Fatalf("exit %d, error %+v, server saw %d completion requests", code, e, sent)
	}
	code, stdout, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--max-model-len", "500", "--truncate-context", p)
	var resp record.Response
	parseLines(t, stdout)[0].Decode("response", &resp)
	if code != 0 || resp.ContextCutTokens < 1000 || resp.Usage.PromptTokens > 600 {
		t.Fatalf("exit %d, %+v: %s", code, resp, stderr)
	}
}

// --truncate-context cuts until the counting tokenizer says the prompt fits.
// Long words cost the server half again what o200k_base counts, so a cut by
// the estimate still overflows the server's context, while with --tokenizer
// server the cut is counted again until it fits.
func TestTruncateContextFitsTheServersCount(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.MaxModelLen, opt.Overflow = 500, sim.OverflowError
	s := startSim(t, opt)
	long := strings.Repeat("internationalization characteristically ", 400)
	p := filepath.Join(t.TempDir(), "in.jsonl")
	b, _ := record.Marshal(map[string]any{"id": "long", "request": map[string]any{"messages": []map[string]string{{"role": "user", "content": long + "\n\nInstruction: say ok"}}, "max_tokens": 10}})
	os.WriteFile(p, append(b, '\n'), 0o644)
	args := []string{"--base-url", s.BaseURL(), "--max-model-len", "500", "--truncate-context", "--max-failures", "inf", p}

	code, stdout, stderr := runBatch(t, nil, args...)
	var e record.Error
	parseLines(t, stdout)[0].Decode("error", &e)
	if code != 0 || e.Kind != "context_length" || e.Status != 400 {
		t.Fatalf("estimate: exit %d, error %+v (want the server's 400): %s", code, e, stderr)
	}
	code, stdout, stderr = runBatch(t, nil, append([]string{"--tokenizer", "server"}, args...)...)
	var resp record.Response
	parseLines(t, stdout)[0].Decode("response", &resp)
	if code != 0 || resp.Tokenizer != "server" || resp.PromptTokensSent != resp.Usage.PromptTokens || resp.Usage.PromptTokens+10 > 500 ||
		resp.Usage.PromptTokens < 400 || resp.ContextCutTokens < 1000 || resp.ServerTruncated {
		t.Fatalf("server count: exit %d, %+v: %s", code, resp, stderr)
	}
}

func TestSilentTruncationFlagged(t *testing.T) {
	opt := sim.DefaultOptions()
	s := startSim(t, opt)
	// The simulator counts honestly; a 100-token context limit is what
	// Ollama's silent truncation looks like, so fake it with a proxy.
	proxy := newTruncatingProxy(t, s.BaseURL())
	p := filepath.Join(t.TempDir(), "in.jsonl")
	b, _ := record.Marshal(map[string]any{"id": "x", "request": map[string]any{"prompt": strings.Repeat("many words here ", 2000), "max_tokens": 2}})
	os.WriteFile(p, append(b, '\n'), 0o644)
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, stderr := runBatch(t, nil, "--base-url", proxy, "--model", sim.DefaultModel, "--stats", stats, p)
	var resp record.Response
	parseLines(t, stdout)[0].Decode("response", &resp)
	if code != 0 || !strings.Contains(stderr, "the server cut the prompt (it counted fewer prompt tokens than were sent)") || !strings.Contains(stderr, "server_truncated=1") {
		t.Fatalf("exit %d, no warning: %s", code, stderr)
	}
	if !resp.ServerTruncated || resp.Tokenizer != "o200k_base~" || resp.PromptTokensSent < 4000 || resp.Usage.PromptTokens != 100 {
		t.Fatalf("response %+v", resp)
	}
	var sum Summary
	b, _ = os.ReadFile(stats)
	if err := record.Unmarshal(b, &sum); err != nil || sum.ServerTruncated != 1 || len(sum.ServerTruncatedIDs) != 1 || sum.ServerTruncatedIDs[0] != "x" {
		t.Fatalf("--stats: %v %s", err, b)
	}
	// Sent straight to the simulator, the same prompt is not flagged.
	code, stdout, _ = runBatch(t, nil, "--base-url", s.BaseURL(), "--model", sim.DefaultModel, p)
	resp = record.Response{}
	parseLines(t, stdout)[0].Decode("response", &resp)
	if code != 0 || resp.ServerTruncated || resp.PromptTokensSent == 0 {
		t.Fatalf("honest server: exit %d, %+v", code, resp)
	}
}

// A resumed run follows its input: records come out in input order, ids
// that left the input are dropped, and an id whose request changed is sent
// again; only the unchanged ones are taken from the earlier output.
func TestResumeFollowsInput(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	in := writeInput(t, 6, 4)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", "4", "--resume", "-o", out}
	if code, _, stderr := runBatch(t, nil, append(args, in)...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	first := map[string]string{}
	for _, rec := range readRecords(t, out) {
		first[rec.ID()] = string(rec.AppendJSON(nil))
	}
	// r00000, r00002 and r00005 leave; r00001's question changes; r00009 is new.
	lines, _ := os.ReadFile(in)
	byID := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		rec, _ := record.Parse([]byte(l))
		byID[rec.ID()] = l
	}
	next := strings.Join([]string{
		byID["r00004"],
		strings.Replace(byID["r00001"], "question number 1", "question number one", 1),
		byID["r00003"],
		`{"id":"r00009","request":{"messages":[{"role":"user","content":"question number 9"}],"max_tokens":4}}`,
	}, "\n") + "\n"
	in2 := filepath.Join(t.TempDir(), "in2.jsonl")
	os.WriteFile(in2, []byte(next), 0o644)
	before := s.Stats().ByPath["/v1/chat/completions"]
	code, _, stderr := runBatch(t, nil, append(args, in2)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	recs := readRecords(t, out)
	var ids []string
	for _, rec := range recs {
		ids = append(ids, rec.ID())
	}
	if got := strings.Join(ids, ","); got != "r00004,r00001,r00003,r00009" {
		t.Fatalf("ids %s, want the input's r00004,r00001,r00003,r00009", got)
	}
	if sent := s.Stats().ByPath["/v1/chat/completions"] - before; sent != 2 {
		t.Fatalf("%d requests, want 2 (the changed r00001 and the new r00009)", sent)
	}
	for _, i := range []int{0, 2} {
		if got := string(recs[i].AppendJSON(nil)); got != first[recs[i].ID()] {
			t.Fatalf("%s not kept as it was:\n%s\n%s", recs[i].ID(), got, first[recs[i].ID()])
		}
	}
	if !strings.Contains(string(recs[1].Raw("request")), "question number one") || string(recs[1].AppendJSON(nil)) == first["r00001"] {
		t.Fatalf("changed r00001 not sent again: %s", recs[1].AppendJSON(nil))
	}
	if !strings.Contains(stderr, "ids_not_in_input=3") || !strings.Contains(stderr, "sent_again_changed=1") {
		t.Fatalf("the log does not count the ids that left and the changed records: %s", stderr)
	}
	// The answers of the ids that left are paid for: moved aside, said at WARN.
	if !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, "records=3") {
		t.Fatalf("the log does not warn that 3 answers were moved aside: %s", stderr)
	}
	var aside []string
	for _, rec := range readRecords(t, AsideName(out)) {
		if got := string(rec.AppendJSON(nil)); got != first[rec.ID()] {
			t.Fatalf("%s moved aside changed:\n%s\n%s", rec.ID(), got, first[rec.ID()])
		}
		aside = append(aside, rec.ID())
	}
	if got := strings.Join(aside, ","); got != "r00000,r00002,r00005" {
		t.Fatalf("%s holds %s, want r00000,r00002,r00005", AsideName(out), got)
	}
	if left, _ := filepath.Glob(stream.PartialName(out) + "*"); len(left) != 1 {
		t.Fatalf("left behind: %v, want only the aside file", left)
	}
}

// Bad input stops the reading, not the requests already in flight: the
// records before the bad line are answered, written (FILE.partial), and the
// run exits 3 naming the line.
func TestBadInputKeepsRecordsInFlight(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.Latency = 300 * time.Millisecond
	s := startSim(t, opt)
	in := writeInput(t, 12, 4)
	f, _ := os.OpenFile(in, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"id\":\"broken\",\n")
	f.Close()
	out := filepath.Join(t.TempDir(), "out.jsonl")
	code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", "16", "-o", out, in)
	if code != app.ExitBadInput || !strings.Contains(stderr, in+":13") {
		t.Fatalf("exit %d, want 3 naming %s:13:\n%s", code, in, stderr)
	}
	recs := readRecords(t, stream.PartialName(out))
	if ok, _ := exactlyOnce(t, recs, 12); ok != 12 {
		t.Fatalf("%d of the 12 records before the bad line were answered and kept:\n%s", ok, stderr)
	}
}

// A run that fails at start (no endpoint answers) leaves no journal behind:
// the next run without --resume is not refused for answers it never got.
func TestFailedStartLeavesNoJournal(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","request":{"messages":[{"role":"user","content":"hi"}]}}`+"\n"), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	for range 2 {
		code, _, stderr := runBatch(t, nil, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "-o", out, in)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (no endpoint): %s", code, stderr)
		}
		if _, err := os.Stat(journalName(out)); !os.IsNotExist(err) {
			t.Fatalf("journal left behind: %v", err)
		}
	}
}

// A resumed run stopped by SIGTERM before it reached the earlier answers of
// some records (here: the input in reverse order, so all of them) keeps the
// earlier outputs it read: the next --resume pays for none of them again.
func TestSigtermOfResumedRunKeepsEarlierAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a kill -9 and a SIGTERM trial (make test runs it)")
	}
	const n, j = 400, 4
	opt := sim.DefaultOptions()
	opt.Latency = 5 * time.Millisecond
	s := startSim(t, opt)
	in := writeInput(t, n, 8)
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	slices.Reverse(lines)
	rev := filepath.Join(t.TempDir(), "reversed.jsonl")
	if err := os.WriteFile(rev, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl.zst")
	sent := func() int64 { return s.Stats().ByPath["/v1/chat/completions"] }
	args := func(input string) []string {
		return []string{"--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", fmt.Sprint(j), "--resume", "-o", out, input}
	}
	cmd, _ := childBatch(t, args(in)...)
	waitFor(t, "300 requests", func() bool { return sent() >= 300 })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed := sent()
	cmd, stderr := childBatch(t, args(rev)...)
	waitFor(t, "20 more requests", func() bool { return sent() >= killed+20 })
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the resumed run finished before SIGTERM: %s", stderr)
	}
	code, _, errText := runBatch(t, nil, args(in)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errText)
	}
	if ok, _ := exactlyOnce(t, readRecords(t, out), n); ok != n {
		t.Fatalf("%d answered of %d", ok, n)
	}
	// The kill loses at most the j in flight; SIGTERM loses none.
	if total := sent(); total > n+j {
		t.Fatalf("%d requests for %d records: earlier answers were paid again", total, n)
	}
	if left, _ := filepath.Glob(stream.PartialName(out) + "*"); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}
