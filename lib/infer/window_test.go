package infer

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// One request that never returns holds back the ordered output, but only by
// the window: the others go on until the window is full, then dispatch
// waits; memory is bounded by the window, not by the input.
func TestWindowBoundsHeadOfLine(t *testing.T) {
	const n, j, window = 300, 4, 20
	var calls atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	// fill it: window+1 requests, then nothing more until record 0 returns.
	waitFor(t, "the window to fill", func() bool { return calls.Load() >= window+1 })
	time.Sleep(200 * time.Millisecond)
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
