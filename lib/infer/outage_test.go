package infer

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/testbin"
)

// With default flags, an 8 s outage of the only endpoint (a vLLM restart:
// connections dropped, then 503s) in the middle of a 2,000-record run at
// -j 64 is held, not burned: 2,000 answers, 0 errors, and a few lines on
// stderr for the outage rather than one per record.
func TestOutageIsHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: an 8 s outage")
	}
	s := sim.New(sim.DefaultOptions())
	t.Cleanup(func() { s.Close() })
	var completions atomic.Int64
	var downUntil atomic.Int64 // unix nanos
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if completions.Add(1) == 1000 {
				downUntil.Store(time.Now().Add(8 * time.Second).UnixNano())
			}
		}
		if until := downUntil.Load(); until > 0 && time.Now().UnixNano() < until {
			if completions.Load()%2 == 0 {
				// Half the time the connection drops, half a proxy says 503.
				if hj, ok := w.(http.Hijacker); ok {
					if c, _, err := hj.Hijack(); err == nil {
						c.Close()
						return
					}
				}
			}
			http.Error(w, "upstream restarting", http.StatusServiceUnavailable)
			return
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	start := time.Now()
	code, stdout, stderr := runBatch(t, nil, "--base-url", srv.URL+"/v1", "-j", "64", writeInput(t, 2000, 4))
	if code != app.ExitOK {
		t.Fatalf("exit %d after %s:\n%s", code, time.Since(start), tail(stderr))
	}
	if ok, failed := exactlyOnce(t, parseLines(t, stdout), 2000); ok != 2000 || failed != 0 {
		t.Fatalf("%d answers, %d errors; want 2000 and 0", ok, failed)
	}
	if n := strings.Count(stderr, "\n"); n > 30 {
		t.Errorf("%d stderr lines for one outage:\n%s", n, tail(stderr))
	}
	for _, want := range []string{"every endpoint is failing", "outage over"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	t.Logf("%s for 2000 records through an 8 s outage; %d completion requests", time.Since(start).Round(time.Second), completions.Load())
}

// No endpoint answering at start-up ends the run at once (exit 1), naming
// each endpoint and why, instead of every record retrying a mistyped URL.
func TestNoEndpointAnswersAtStart(t *testing.T) {
	refusedURL := testbin.RefusedURL(t)
	var posts atomic.Int64
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		http.Error(w, `{"error":{"message":"invalid key"}}`, http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	code, _, stderr := runBatch(t, nil, "--base-url", refusedURL+"/v1,"+unauthorized.URL+"/v1", "--model", "m", writeInput(t, 50, 4))
	// At once: no record was sent (each would have retried the refused
	// endpoint for up to 15.5 s).
	if code != app.ExitFailure || posts.Load() != 0 {
		t.Fatalf("exit %d after %d requests, want 1 before any:\n%s", code, posts.Load(), stderr)
	}
	for _, want := range []string{strings.TrimPrefix(refusedURL, "http://"), "connection refused", strings.TrimPrefix(unauthorized.URL, "http://"), "401"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, stderr)
		}
	}
}

func tail(s string) string {
	if i := len(s) - 3000; i > 0 {
		return "…" + s[i:]
	}
	return s
}
