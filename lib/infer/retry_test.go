package infer

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// TestTransientFaults10k once failed on a loaded machine with "retried
// 73.88ms after a 429 with Retry-After 80ms", measured by the server's
// clock. The engine cannot retry early (the wait is a timer started after
// the 429 arrived); what the server saw was an attempt the client had
// already given up on (--timeout-first-byte) reaching the fault plan late,
// after the retry's 429. This is that order of events, made certain: the
// first attempt is held in the server until the second got its 429. The
// engine waited the Retry-After exactly once, and the server's clock would
// have called the stale attempt an early retry.
func TestRetryAfterWithStaleAttempt(t *testing.T) {
	const retryAfter = 80 * time.Millisecond
	var mu sync.Mutex
	type event struct {
		at    time.Time
		fault sim.Fault
	}
	var events []event // as the server's fault plan sees them
	got429 := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-got429:
		default:
			close(got429) // a failed test must not leave the handler blocked
		}
	})
	calls := 0
	opt := sim.DefaultOptions()
	opt.RetryAfter = retryAfter
	opt.FaultPlan = func(seq uint64, req *sim.Request) sim.Fault {
		mu.Lock()
		calls++
		call := calls
		mu.Unlock()
		f := sim.NoFault
		switch call {
		case 1:
			<-got429 // the client times out meanwhile and retries
		case 2:
			f = sim.Fault429
		}
		mu.Lock()
		events = append(events, event{time.Now(), f})
		mu.Unlock()
		if call == 2 {
			close(got429)
		}
		return f
	}
	s := startSim(t, opt)
	var wmu sync.Mutex
	var waits []time.Duration
	tool := waitsTool(func(d time.Duration) {
		wmu.Lock()
		waits = append(waits, d)
		wmu.Unlock()
	})
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, stderr := runTool(t, tool, nil, "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", "1",
		"--retry-base", "1ms", "--timeout-first-byte", "300ms", "--stats", stats, writeInput(t, 1, 4))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if ok, _ := exactlyOnce(t, parseLines(t, stdout), 1); ok != 1 {
		t.Fatalf("no answer: %s", stdout)
	}
	var sum Summary
	if b, err := os.ReadFile(stats); err != nil || record.Unmarshal(b, &sum) != nil {
		t.Fatalf("--stats: %v", err)
	}
	wmu.Lock()
	defer wmu.Unlock()
	// One Retry-After wait per 429 the client received, and the jittered
	// waits after timeouts at most --retry-base.
	n429 := int64(0)
	for _, d := range waits {
		switch {
		case d == retryAfter:
			n429++
		case d > time.Millisecond:
			t.Fatalf("a back-off of %v (all: %v)", d, waits)
		}
	}
	if n429 != sum.Requests.FailedByHTTP["429"] || n429 == 0 {
		t.Fatalf("%d waits of %v for %d 429s received (waits %v)", n429, retryAfter, sum.Requests.FailedByHTTP["429"], waits)
	}
	mu.Lock()
	defer mu.Unlock()
	// What the server saw right after its 429 was not a retry.
	if len(events) != 3 || events[0].fault != sim.Fault429 || events[1].fault != sim.NoFault {
		t.Fatalf("the server saw %v, want the 429 first, then the stale attempt, then the retry", events)
	}
}

// A huge Retry-After (a broken or hostile server's) waits --retry-after-max,
// not a negative time that retries at once.
func TestHugeRetryAfterIsCapped(t *testing.T) {
	for _, header := range []string{"Retry-After", "Retry-After-Ms"} {
		t.Run(header, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet { // the start-up check of /v1/models
					fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
					return
				}
				if calls.Add(1) == 1 {
					w.Header().Set(header, "1e300")
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				fmt.Fprint(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`)
			}))
			defer srv.Close()
			var waits []time.Duration
			tool := waitsTool(func(d time.Duration) { waits = append(waits, d) })
			code, _, stderr := runTool(t, tool, nil, "--base-url", srv.URL, "--model", "m", "-j", "1", "--retry-base", "1ms", "--retry-after-max", "30ms", writeInput(t, 1, 4))
			if code != 0 || len(waits) != 1 || waits[0] != 30*time.Millisecond {
				t.Fatalf("exit %d, back-offs %v; want one of --retry-after-max 30ms: %s", code, waits, stderr)
			}
		})
	}
}

// --max-reply bounds a reply: a longer one fails the record with its own
// kind after one attempt (a runaway stream is not asked for again).
func TestMaxReply(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		for range 10_000 {
			fmt.Fprint(w, `data: {"choices":[{"delta":{"content":"the same words again "}}]}`+"\n\n")
		}
		fmt.Fprint(w, `data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	code, stdout, stderr := runBatch(t, nil, "--base-url", srv.URL, "--model", "m", "--stream", "--max-reply", "100KiB", "--max-failures", "inf", writeInput(t, 1, 4))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var e record.Error
	recs := parseLines(t, stdout)
	if len(recs) != 1 || recs[0].Decode("error", &e) != nil || e.Kind != "reply_too_large" || e.Attempts != 1 || calls.Load() != 1 {
		t.Fatalf("%d calls; %s", calls.Load(), stdout)
	}
	for _, bad := range []string{"64MB", "0", "12x", "10", "1GiB"} {
		if code, _, stderr := runBatch(t, nil, "--base-url", srv.URL, "--max-reply", bad, writeInput(t, 1, 4)); code != 2 || !strings.Contains(stderr, "--max-reply") {
			t.Errorf("--max-reply %s: exit %d: %s", bad, code, stderr)
		}
	}
}
