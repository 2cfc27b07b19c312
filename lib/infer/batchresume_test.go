package infer

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/stream"
)

// batchServer is llm-sim behind a handler that counts the batches created
// and files uploaded, and can hold the answer of one request (after the
// sim has acted on it) so that a test kills the client at that moment.
type batchServer struct {
	s                *sim.Server
	url              string
	created, uploads atomic.Int64
	mu               sync.Mutex
	hold             func(*http.Request) bool // nil: hold nothing
	held             chan struct{}            // closed when a request is held
	release          chan struct{}
}

func newBatchServer(t *testing.T) *batchServer {
	bs := &batchServer{s: sim.New(sim.DefaultOptions()), release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/batches":
			bs.created.Add(1)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/files":
			bs.uploads.Add(1)
		}
		bs.mu.Lock()
		hold := bs.hold != nil && bs.hold(r)
		if hold {
			bs.hold = nil
		}
		bs.mu.Unlock()
		if !hold {
			bs.s.ServeHTTP(w, r)
			return
		}
		bs.s.ServeHTTP(httptest.NewRecorder(), r) // done at the provider; the answer never arrives
		close(bs.held)
		<-bs.release
	}))
	t.Cleanup(func() {
		close(bs.release)
		srv.Close()
		bs.s.Close()
	})
	bs.url = srv.URL + "/v1"
	return bs
}

// holdFirst holds the answer of the first request match accepts.
func (bs *batchServer) holdFirst(match func(*http.Request) bool) <-chan struct{} {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.hold, bs.held = match, make(chan struct{})
	return bs.held
}

func (bs *batchServer) completions() int64 { return bs.s.Stats().ByPath["/v1/chat/completions"] }

// A --batch-api run killed (kill -9) at each step that costs or fetches —
// an upload answered, a batch created, a poll, a download — is finished by
// the same command with --resume without paying for any request twice: the
// batches it created are found again (by the state file, or by their input
// file when the kill came before the batch id was noted), and a rerun of a
// complete output sends nothing.
func TestBatchAPIKillAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kill -9 trials (make test runs them)")
	}
	const n, per = 25, 10 // three batches
	for _, step := range []struct {
		name  string
		match func(*http.Request) bool
	}{
		{"upload", func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Path == "/v1/files" }},
		{"create", func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Path == "/v1/batches" }},
		{"poll", func(r *http.Request) bool {
			return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/batches/")
		}},
		{"download", func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/content") }},
	} {
		t.Run(step.name, func(t *testing.T) {
			bs := newBatchServer(t)
			in := writeInput(t, n, 4)
			out := filepath.Join(t.TempDir(), "out.jsonl.zst")
			args := []string{"--resume", "--batch-api", "--batch-poll", "20ms", "--batch-max-requests", fmt.Sprint(per),
				"--base-url", bs.url, "--model", sim.DefaultModel, "-o", out, in}
			held := bs.holdFirst(step.match)
			cmd, stderr := childBatch(t, args...)
			<-held
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()

			code, _, errText := runBatch(t, nil, args...)
			if code != 0 {
				t.Fatalf("resume: exit %d: %s\nkilled run: %s", code, errText, stderr)
			}
			if ok, _ := exactlyOnce(t, readRecords(t, out), n); ok != n {
				t.Fatalf("%d answered of %d", ok, n)
			}
			if c, got := bs.created.Load(), bs.completions(); c != 3 || got != n {
				t.Fatalf("%d batches created and %d requests answered for %d records in 3 batches: paid twice\n%s", c, got, n, errText)
			}
			if _, err := os.Stat(BatchStateName(out)); err == nil {
				t.Fatalf("a finished run left %s", BatchStateName(out))
			}

			// The output is complete: --resume keeps it and pays nothing.
			uploads := bs.uploads.Load()
			before, _ := os.ReadFile(out)
			if code, _, errText := runBatch(t, nil, args...); code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, errText)
			}
			if c, got := bs.created.Load(), bs.completions(); c != 3 || got != n || bs.uploads.Load() != uploads {
				t.Fatalf("rerun of a complete output: %d batches, %d requests, %d uploads", c, got, bs.uploads.Load()-uploads)
			}
			after, _ := os.ReadFile(out)
			if !bytes.Equal(outcomesOf(t, before), outcomesOf(t, after)) {
				t.Fatal("the rerun changed the output")
			}
		})
	}
}

// outcomesOf is outcomes of a compressed output, as bytes to compare.
func outcomesOf(t *testing.T, b []byte) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "o.jsonl.zst")
	os.WriteFile(p, b, 0o644)
	return []byte(strings.Join(outcomes(t, readRecords(t, p)), "\n"))
}

// --batch-api --resume keeps the answers an interrupted online run left in
// FILE.partial and sends only the other requests as a batch.
func TestBatchAPIResumeKeepsOnlineAnswers(t *testing.T) {
	bs := newBatchServer(t)
	const n, k = 20, 7
	in := writeInput(t, n, 4)
	b, _ := os.ReadFile(in)
	first := filepath.Join(t.TempDir(), "first.jsonl")
	os.WriteFile(first, bytes.Join(bytes.SplitAfter(b, []byte("\n"))[:k], nil), 0o644)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if code, _, stderr := runBatch(t, nil, "--base-url", bs.url, "--model", sim.DefaultModel, "-o", out, first); code != 0 {
		t.Fatalf("online: exit %d: %s", code, stderr)
	}
	// What an online run killed after k answers leaves.
	if err := os.Rename(out, stream.PartialName(out)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runBatch(t, nil, "--resume", "--batch-api", "--batch-poll", "20ms", "--base-url", bs.url, "--model", sim.DefaultModel, "-o", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if ok, _ := exactlyOnce(t, readRecords(t, out), n); ok != n {
		t.Fatalf("%d answered", ok)
	}
	if got := bs.completions(); got != n || bs.created.Load() != 1 {
		t.Fatalf("%d requests in %d batches for %d records, %d answered online", got, bs.created.Load(), n, k)
	}
}

// A --batch-import stopped by SIGTERM says to rerun with --resume, and that
// works; without it the rerun is refused, naming --resume.
func TestBatchImportInterruptedAdvice(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a SIGTERM trial (make test runs it)")
	}
	s := startSim(t, sim.DefaultOptions())
	const n = 30
	in := writeInput(t, n, 4)
	// The results: the export run as a batch.
	dir := t.TempDir()
	reqs := filepath.Join(dir, "requests.jsonl")
	if code, _, stderr := runBatch(t, nil, "--batch-export", "--model", sim.DefaultModel, "-o", reqs, in); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	results, _ := runSimBatch(t, s, reqs, "/v1/chat/completions", dir)
	// The input comes through a FIFO that stops after 10 records, so the
	// run is stopped in the middle.
	fifo := filepath.Join(dir, "in.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	out := filepath.Join(dir, "replies.jsonl") // not the results' out.jsonl, which it reads
	cmd, stderr := childBatch(t, "--batch-import", results, "-o", out, fifo)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(in)
	lines := bytes.SplitAfter(b, []byte("\n"))
	w.Write(bytes.Join(lines[:10], nil))
	waitFor(t, "the first record written", func() bool {
		_, err := os.Stat(stream.PartialName(out))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGTERM)
	// Only once the run has taken the signal may the input end: closed
	// sooner, the run could read to the end and finish before the signal
	// arrives (a complete output, no advice).
	waitFor(t, "the signal taken", func() bool { return strings.Contains(stderr.String(), "signal received") })
	w.Close()
	cmd.Wait()
	if !strings.Contains(stderr.String(), "--resume") {
		t.Fatalf("the stopped run gives no advice: %s", stderr)
	}
	args := []string{"--batch-import", results, "-o", out, in}
	if code, _, errText := runBatch(t, nil, args...); code != 2 || !strings.Contains(errText, "--resume continues it") {
		t.Fatalf("rerun without --resume: exit %d: %s", code, errText)
	}
	if code, _, errText := runBatch(t, nil, append([]string{"--resume"}, args...)...); code != 0 {
		t.Fatalf("the advice does not work: exit %d: %s", code, errText)
	}
	if ok, _ := exactlyOnce(t, readRecords(t, out), n); ok != n {
		t.Fatalf("%d answered", ok)
	}
}

// --batch-api writes a partitioned folder too, and --resume of the
// complete folder pays nothing.
func TestBatchAPIPartitioned(t *testing.T) {
	bs := newBatchServer(t)
	const n = 12
	in := writeBenchInput(t, n, 5)
	dir := filepath.Join(t.TempDir(), "lake") + "/"
	args := []string{"--resume", "--batch-api", "--batch-poll", "20ms", "--base-url", bs.url, "--model", sim.DefaultModel, "--partition-by", "bench", "-o", dir, in}
	for range 2 {
		if code, _, stderr := runBatch(t, nil, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if ok, _ := exactlyOnce(t, readLake(t, dir), n); ok != n {
			t.Fatalf("%d answered", ok)
		}
		if bs.created.Load() != 1 || bs.completions() != n {
			t.Fatalf("%d batches, %d requests", bs.created.Load(), bs.completions())
		}
	}
	for _, left := range []string{"_*partial*", "_earlier", ".ifkit-batch-*"} {
		if m, _ := filepath.Glob(filepath.Join(dir, left)); len(m) > 0 {
			t.Fatalf("left behind: %v", m)
		}
	}
}
