package infer

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// One request that never returns holds back the ordered output, but only by
// the window: the others go on until the window is full, then dispatch
// waits; memory is bounded by the window, not by the input.
func TestWindowBoundsHeadOfLine(t *testing.T) {
	const n, j, window = 300, 4, 20
	var calls atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet { // the start-up check of /v1/models
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		calls.Add(1)
		if bytes.Contains(b, []byte("question number 0\"")) {
			<-release
		}
		fmt.Fprint(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	in := writeInput(t, n, 4)
	done := make(chan struct{})
	var code int
	var stdout []byte
	var stderr string
	go func() {
		defer close(done)
		code, stdout, stderr = runBatch(t, nil, "--base-url", srv.URL, "--model", "m", "-j", fmt.Sprint(j), "--window", fmt.Sprint(window), in)
	}()
	// Record 0 is taken out of the queue by the writer, records 1..window
	// fill it: window+1 requests, then nothing more until record 0 returns
	// (TestRecordWriterWindowBound shows that admission stops there).
	waitFor(t, "the window to fill", func() bool { return calls.Load() >= window+1 })
	if got := calls.Load(); got != window+1 {
		t.Fatalf("%d requests sent behind a stuck one, want exactly %d (window %d)", got, window+1, window)
	}
	close(release)
	<-done
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := parseLines(t, stdout)
	exactlyOnce(t, recs, n)
	for i, r := range recs {
		if r.ID() != fmt.Sprintf("r%05d", i) {
			t.Fatalf("position %d: %s", i, r.ID())
		}
	}
}

// A 401 is final: every record fails at once, the run exits 4 under the
// default --max-failures 0, and the key the server echoes back appears
// nowhere.
func TestAuthFailureExit4KeyRedacted(t *testing.T) {
	const key = "sk-echoed-secret-77aa"
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet { // the start-up check passes; the key is refused later
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
			return
		}
		calls.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s"}}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	keyFile := t.TempDir() + "/key"
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stats := t.TempDir() + "/stats.json"
	code, stdout, stderr := runBatch(t, nil, "--base-url", srv.URL, "--model", "m", "--api-key-file", keyFile, "--stats", stats, writeInput(t, 3, 4))
	if code != app.ExitTooManyFail {
		t.Fatalf("exit %d, want 4: %s", code, stderr)
	}
	if calls.Load() != 3 {
		t.Fatalf("%d requests for 3 records: a 401 must not be retried", calls.Load())
	}
	statsText, _ := os.ReadFile(stats)
	for name, text := range map[string]string{"stdout": string(stdout), "stderr": stderr, "stats": string(statsText)} {
		if strings.Contains(text, key) {
			t.Fatalf("the key appears in %s: %s", name, text)
		}
	}
	for _, r := range parseLines(t, stdout) {
		var e record.Error
		r.Decode("error", &e)
		if e.Kind != "auth" || e.Status != 401 || e.Attempts != 1 || !strings.Contains(e.Message, "[redacted]") {
			t.Fatalf("%+v", e)
		}
	}
}

// --rpm holds the request rate: 30 requests at 1200/min (a bucket of 20)
// cannot arrive in less than 0.5 s.
func TestRPM(t *testing.T) {
	var mu sync.Mutex
	var arrivals []time.Time
	opt := sim.DefaultOptions()
	opt.FaultPlan = func(uint64, *sim.Request) sim.Fault {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		return sim.NoFault
	}
	s := startSim(t, opt)
	code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", "8", "--rpm", "1200", writeInput(t, 30, 4))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != 30 {
		t.Fatalf("%d requests", len(arrivals))
	}
	if span := arrivals[29].Sub(arrivals[0]); span < 450*time.Millisecond {
		t.Fatalf("30 requests within %v at --rpm 1200", span)
	}
}

// The closing summary says why records failed: one line per kind and status
// with a count and an example message, then how to continue.
func TestFailureSummaryByKind(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, `{"data":[{"id":"x"}]}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("question number 7\"")) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"max_tokens is too large"}}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"the model \"x\" does not exist"}}`)
	}))
	defer srv.Close()
	code, _, stderr := runBatch(t, nil, "--base-url", srv.URL, "--model", "x", writeInput(t, 50, 4))
	if code != app.ExitTooManyFail {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`not_found 404: the model \"x\" does not exist — 49 records`,
		`bad_request 400: max_tokens is too large — 1 records`,
		"--resume --retry-errors",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Index(stderr, "not_found 404") > strings.Index(stderr, "bad_request 400") {
		t.Errorf("the most frequent failure is not first:\n%s", stderr)
	}
}

// --stats counts the failures the run's summary counts (app.Run's tally):
// a final failure kept by --resume is one of them, by kind too.
func TestStatsFailuresAreTheRuns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("number 1\"")) || bytes.Contains(b, []byte("number 3\"")) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"no"}}`)
			return
		}
		fmt.Fprint(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	out, stats := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "stats.json")
	in := writeInput(t, 5, 4)
	for _, resume := range []bool{false, true} {
		args := []string{"--base-url", srv.URL, "--model", "m", "--max-failures", "inf", "--stats", stats, "-o", out, in}
		if resume {
			args = append([]string{"--resume"}, args...)
		}
		if code, _, stderr := runBatch(t, nil, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var sum Summary
		b, _ := os.ReadFile(stats)
		if err := record.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Records.Failed != 2 || sum.Records.FailedByKind["bad_request"] != 2 || len(sum.Records.FailedByKind) != 1 {
			t.Fatalf("resume=%v: failed %d, by kind %v; want 2 bad_request", resume, sum.Records.Failed, sum.Records.FailedByKind)
		}
	}
}
