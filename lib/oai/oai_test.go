package oai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/testbin"
)

func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestCompleteChatForwardsBodyAndKey(t *testing.T) {
	var gotPath, gotAuth, gotBody string
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth = r.URL.Path, r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		fmt.Fprint(w, `{"model":"m","choices":[{"message":{"content":null,"reasoning_content":"thinking"},"finish_reason":"length"}],"usage":{"prompt_tokens":7,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":5}}}`)
	})
	c := New(4, time.Second, "sk-test-key")
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"top_k":20}`
	comp, err := c.Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/v1/chat/completions" || gotAuth != "Bearer sk-test-key" || gotBody != body {
		t.Fatalf("request: path %q auth %q body %q", gotPath, gotAuth, gotBody)
	}
	if comp.Text != "" || comp.Reasoning != "thinking" || comp.FinishReason != "length" || comp.Usage.PromptTokens != 7 || comp.Usage.CompletionTokens != 9 || !comp.HasUsage ||
		comp.Usage.CachedTokens() != 4 || comp.Usage.ReasoningTokens() != 5 {
		t.Fatalf("completion %+v", comp)
	}
}

func TestCompleteCompletionsText(t *testing.T) {
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			t.Errorf("path %s", r.URL.Path)
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("no key was given, yet Authorization %q", r.Header.Get("Authorization"))
		}
		fmt.Fprint(w, `{"choices":[{"text":"four","finish_reason":"stop"}]}`)
	})
	comp, err := New(1, time.Second, "").Complete(context.Background(), Call{Base: base, Path: PathCompletions, Body: []byte(`{"prompt":"2+2="}`)})
	if err != nil || comp.Text != "four" || comp.FinishReason != "stop" || comp.HasUsage {
		t.Fatalf("%+v %v", comp, err)
	}
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

func TestStream(t *testing.T) {
	tests := []struct {
		name     string
		events   []string
		text     string
		reason   string
		finish   string
		kind     string
		hasUsage bool
	}{
		{"chat", []string{
			`{"choices":[{"delta":{"role":"assistant"}}]}`,
			`{"choices":[{"delta":{"reasoning_content":"hm"}}]}`,
			`{"choices":[{"delta":{"content":"Hel"}}]}`,
			`{"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}`,
			`[DONE]`}, "Hello", "hm", "stop", "", true},
		{"chat, the trace in \"reasoning\" (Ollama, OpenRouter, vLLM 0.10+)", []string{
			`{"choices":[{"delta":{"role":"assistant","content":""}}]}`,
			`{"choices":[{"delta":{"reasoning":"We need"}}]}`,
			`{"choices":[{"delta":{"reasoning":" [3]."}}]}`,
			`{"choices":[{"delta":{"content":"[3]"},"finish_reason":"stop"}]}`,
			`[DONE]`}, "[3]", "We need [3].", "stop", "", false},
		{"completions", []string{`{"choices":[{"text":"a"}]}`, `{"choices":[{"text":"b","finish_reason":"length"}]}`, `[DONE]`}, "ab", "", "length", "", false},
		{"ended without finish_reason", []string{`{"choices":[{"delta":{"content":"Hel"}}]}`}, "", "", "", KindAborted, false},
		{"[DONE] without finish_reason", []string{`{"choices":[{"delta":{"content":"Hel"}}]}`, `[DONE]`}, "", "", "", KindAborted, false},
		{"error event", []string{`{"error":{"message":"engine died"}}`}, "", "", "", KindServer, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := serve(t, func(w http.ResponseWriter, r *http.Request) { sse(w, tt.events...) })
			comp, err := New(1, time.Second, "").Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`), Stream: true})
			if tt.kind != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != tt.kind || !e.Retryable {
					t.Fatalf("want retryable %s, got %v", tt.kind, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if comp.Text != tt.text || comp.Reasoning != tt.reason || comp.FinishReason != tt.finish || comp.HasUsage != tt.hasUsage {
				t.Fatalf("%+v", comp)
			}
			if comp.TTFT <= 0 || comp.TTFT > comp.Latency {
				t.Fatalf("ttft %v latency %v", comp.TTFT, comp.Latency)
			}
		})
	}
}

func TestStatusClassification(t *testing.T) {
	tests := []struct {
		status    int
		body      string
		kind      string
		retryable bool
	}{
		{400, `{"error":{"message":"This model's maximum context length is 8192 tokens"}}`, KindContextLength, false},
		{400, `{"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","code":400}`, KindContextLength, false},                            // SGLang
		{400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, KindContextLength, false},                                        // llama.cpp
		{422, "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`\",\"error_type\":\"validation\"}", KindContextLength, false}, // TGI
		{422, "{\"error\":\"Input validation error: `inputs` must have less than 4096 tokens. Given: 5000\",\"error_type\":\"validation\"}", KindContextLength, false},
		{400, `{"message":"bad temperature"}`, KindBadRequest, false},
		{401, `{"error":"no key"}`, KindAuth, false},
		{403, ``, KindAuth, false},
		{404, `{"detail":"Not Found"}`, KindNotFound, false},
		{422, `{"detail":[{"msg":"field required"}]}`, KindBadRequest, false},
		{408, ``, KindTimeout, true},
		{429, `{"error":{"message":"slow down"}}`, KindRateLimited, true},
		{500, `oops`, KindServer, true},
		{503, `{"error":{"message":"overloaded"}}`, KindServer, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status, tt.kind), func(t *testing.T) {
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			_, err := New(1, time.Second, "").Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`)})
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.kind || e.Retryable != tt.retryable || e.Status != tt.status || e.RetryAfter != 3*time.Second || e.Message == "" {
				t.Fatalf("got %#v", err)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    map[string]string
		want time.Duration
	}{
		{map[string]string{}, 0},
		{map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After": "1", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		// Huge values are capped, never overflowed into a negative wait.
		{map[string]string{"Retry-After": "1e300"}, MaxRetryAfter},
		{map[string]string{"Retry-After": "99999999999999999999"}, MaxRetryAfter},
		{map[string]string{"Retry-After": "+Inf"}, MaxRetryAfter},
		{map[string]string{"Retry-After": "NaN"}, 0},
		{map[string]string{"Retry-After-Ms": "1e30"}, MaxRetryAfter},
		{map[string]string{"Retry-After": now.AddDate(200, 0, 0).Format(http.TimeFormat)}, MaxRetryAfter},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.h {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("%v: got %v want %v", tt.h, got, tt.want)
		}
	}
}

func TestDeadlines(t *testing.T) {
	release := make(chan struct{})
	hang := func(first bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body) // so the server notices when the client leaves
			if first {
				sse(w, `{"choices":[{"delta":{"content":"a"}}]}`)
			}
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}
	base := serve(t, hang(false))
	streaming := serve(t, hang(true))
	t.Cleanup(func() { close(release) }) // runs before the servers close
	c := New(2, time.Second, "")
	tests := []struct {
		name string
		call Call
		want string
	}{
		{"first byte", Call{Base: base, FirstByte: 50 * time.Millisecond}, "no first byte"},
		{"total", Call{Base: base, Total: 50 * time.Millisecond}, "no complete answer"},
		{"idle stream", Call{Base: streaming, Stream: true, Idle: 50 * time.Millisecond, FirstByte: time.Hour}, "stream stalled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.call.Path = PathChat
			tt.call.Body = []byte(`{}`)
			_, err := c.Complete(context.Background(), tt.call)
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindTimeout || !e.Retryable || !strings.Contains(e.Message, tt.want) {
				t.Fatalf("got %v", err)
			}
		})
	}
	// The caller's own cancellation is not an *Error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(ctx, Call{Base: base, Path: PathChat, Body: []byte(`{}`)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestNetworkErrorIsRetryable(t *testing.T) {
	// Not a closed server's address: another package's server may take it.
	base := testbin.RefusedURL(t) + "/v1"
	_, err := New(1, time.Second, "").Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`)})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNetwork || !e.Retryable {
		t.Fatalf("got %v", err)
	}
}

func TestKeyIsRedacted(t *testing.T) {
	const key = "sk-very-secret-0123"
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"invalid key %s"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	})
	_, err := New(1, time.Second, key).Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`)})
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("got %v", err)
	}
}

func TestNormalizeBase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h:8000", "http://h:8000/v1"},
		{"http://h:8000/", "http://h:8000/v1"},
		{"https://api.example.com/v1/", "https://api.example.com/v1"},
		{" http://h/openai/v1 ", "http://h/openai/v1"},
		{"h:8000", ""},
		{"ftp://h", ""},
	}
	for _, tt := range tests {
		got, err := NormalizeBase(tt.in)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("%q: got %q, %v", tt.in, got, err)
		}
	}
	if l := Label("http://user:pw@h:1/v1"); strings.Contains(l, "pw") {
		t.Errorf("label keeps the password: %s", l)
	}
}

func TestModels(t *testing.T) {
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"qwen","max_model_len":32768}]}`)
	})
	ms, err := New(1, time.Second, "").Models(context.Background(), base, time.Second)
	if err != nil || len(ms) != 1 || ms[0].ID != "qwen" || ms[0].MaxModelLen != 32768 {
		t.Fatalf("%+v %v", ms, err)
	}
}

// ModelsOnce asks each endpoint and key once, by whichever client asks
// first; the others, at once or later, get its answer or its error. A nil
// one asks every time.
func TestModelsOnce(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{} // path and key → requests
	root := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path+" "+r.Header.Get("Authorization")]++
		mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/down/") {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"qwen","max_model_len":32768}]}`)
	})
	up, down := root, strings.TrimSuffix(root, "/v1")+"/down/v1"
	ask := func(once *ModelsOnce, key, base string) ([]Model, error) {
		c := New(1, time.Second, key)
		defer c.Close()
		return once.Ask(context.Background(), c, base, time.Second)
	}

	for range 2 {
		if _, err := ask(nil, "", up); err != nil {
			t.Fatal(err)
		}
	}
	once := &ModelsOnce{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if ms, err := ask(once, "", up); err != nil || len(ms) != 1 || ms[0].MaxModelLen != 32768 {
				t.Errorf("up: %+v %v", ms, err)
			}
			if _, err := ask(once, "", down); err == nil {
				t.Error("down: no error")
			}
		})
	}
	wg.Wait()
	if _, err := ask(once, "k2", up); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"/v1/models ": 3, "/down/v1/models ": 1, "/v1/models Bearer k2": 1}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", asked, want)
	}
}

// A stream cut inside an event is truncated_stream (retried), not a
// malformed reply; a garbled complete event is bad_response.
func TestStreamCutMidEvent(t *testing.T) {
	c := New(1, time.Second, "")
	for in, kind := range map[string]string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"cont": KindTruncatedStream,
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: <html>\n\n":                       KindBadResponse,
	} {
		_, err := c.readStream(strings.NewReader(in), time.Now(), func(bool) {})
		var e *Error
		if !errors.As(err, &e) || e.Kind != kind || !e.Retryable {
			t.Errorf("%q: %v, want retryable %s", in, err, kind)
		}
	}
	comp, err := c.readStream(strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]"), time.Now(), func(bool) {})
	if err != nil || comp.Text != "ok" {
		t.Errorf("[DONE] without a final newline: %v %+v", err, comp)
	}
}

// A reply without a finish_reason (Ollama's abort of a runaway reply: partial
// text, zero usage) is an aborted error, retried; "length" stays a success.
func TestAbortedReply(t *testing.T) {
	for body, kind := range map[string]string{
		`{"choices":[{"message":{"content":"the the the"},"finish_reason":""}],"usage":{"prompt_tokens":0,"completion_tokens":0}}`: KindAborted,
		`{"choices":[{"message":{"content":"the the the"}}]}`:                                                                      KindAborted,
		`{"choices":[{"message":{"content":"cut"},"finish_reason":"length"}]}`:                                                     "",
		`{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`:                                                        "",
	} {
		base := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })
		_, err := New(1, time.Second, "").Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`)})
		var e *Error
		switch {
		case kind == "" && err != nil:
			t.Errorf("%s: %v, want a success", body, err)
		case kind != "" && (!errors.As(err, &e) || e.Kind != kind || !e.Retryable || !Transient(e.Kind, e.Status)):
			t.Errorf("%s: %v, want a retryable, transient %s", body, err, kind)
		}
	}
}

// Every status from 400 to 599 is retried exactly when RetriedStatuses names
// it, and never when FinalStatuses does: the lists the help and docs print.
func TestStatusLists(t *testing.T) {
	retried := map[string]bool{}
	for _, s := range strings.FieldsFunc(strings.ReplaceAll(RetriedStatuses, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
		retried[s] = true
	}
	final := map[string]bool{}
	for _, s := range strings.Split(FinalStatuses, "/") {
		final[s] = true
	}
	c := New(1, time.Second, "")
	for s := 400; s < 600; s++ {
		e := c.statusError(&http.Response{StatusCode: s, Status: http.StatusText(s), Header: http.Header{}}, nil)
		code := fmt.Sprint(s)
		want := retried[code] || (s >= 500 && retried["5xx"])
		if e.Retryable != want {
			t.Errorf("status %d: retryable %v, but RetriedStatuses %q says %v", s, e.Retryable, RetriedStatuses, want)
		}
		if Transient(e.Kind, e.Status) != e.Retryable {
			t.Errorf("status %d: retried %v in a run but Transient (what --resume sends again) says %v", s, e.Retryable, !e.Retryable)
		}
		if final[code] && e.Retryable {
			t.Errorf("status %d is in FinalStatuses %q but retried", s, FinalStatuses)
		}
	}
}

// A reply longer than MaxReply, streamed (in many small events or in one)
// or not, fails with its own kind, not retried.
func TestReplyTooLarge(t *testing.T) {
	const limit = 4 << 10
	for _, tc := range []struct {
		name   string
		stream bool
		reply  func(w http.ResponseWriter)
	}{
		{"whole", false, func(w http.ResponseWriter) {
			fmt.Fprintf(w, `{"choices":[{"message":{"content":%q},"finish_reason":"stop"}]}`, strings.Repeat("a", limit))
		}},
		{"many events", true, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			for range limit / 10 {
				fmt.Fprint(w, `data: {"choices":[{"delta":{"content":"abcdefgh"}}]}`+"\n\n")
			}
			fmt.Fprint(w, `data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
		}},
		{"one event", true, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, `data: {"choices":[{"delta":{"content":%q},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n", strings.Repeat("a", 2*limit))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := serve(t, func(w http.ResponseWriter, r *http.Request) { tc.reply(w) })
			c := New(1, time.Second, "")
			c.MaxReply = limit
			_, err := c.Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`), Stream: tc.stream})
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindTooLarge || e.Retryable || !strings.Contains(e.Message, "4 KiB") {
				t.Fatalf("%v", err)
			}
			// Within the limit, the same server's reply is read.
			c.MaxReply = 1 << 20
			if _, err := c.Complete(context.Background(), Call{Base: base, Path: PathChat, Body: []byte(`{}`), Stream: tc.stream}); err != nil {
				t.Fatalf("within the limit: %v", err)
			}
		})
	}
}

// A 200 reply that holds a million choices (a hostile or broken server)
// costs about its own size in memory, not a decoded choice each (the
// engine reads the first only).
func TestManyChoicesBoundedMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"choices":[{"message":{"content":"first"},"finish_reason":"stop"}`)
	for range 1_000_000 {
		b.WriteString(`,{"index":1,"message":{"content":""}}`)
	}
	b.WriteString(`]}`)
	body := []byte(b.String())
	c := &Client{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	comp, err := c.parseBody(body)
	runtime.ReadMemStats(&after)
	if err != nil || comp.Text != "first" {
		t.Fatalf("%v %+v", err, comp)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(body))/4 {
		t.Fatalf("parsing a %d MB reply allocated %d MB", len(body)>>20, alloc>>20)
	}
}

// A reply says how many choices it held (up to 2), so that a server that
// ignored the request's n is seen; streamed, another choice's events do not
// run into the first one's text.
func TestChoicesCounted(t *testing.T) {
	c := &Client{}
	for body, want := range map[string]int{
		`{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}]}`:                                             1,
		`{"choices":[{"message":{"content":"a"},"finish_reason":"stop"},{"index":1,"message":{"content":"b"}}]}`:       2,
		`{"choices":[{"message":{"content":"a"},"finish_reason":"stop"} , {"index":1,"message":{"content":"b"}}, {}]}`: 2,
	} {
		comp, err := c.parseBody([]byte(body))
		if err != nil || comp.Choices != want {
			t.Errorf("%s: %v, %+v", body, err, comp)
		}
	}
	stream := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"one\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"two\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[{\"index\":1,\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n"
	comp, err := c.readStream(strings.NewReader(stream), time.Now(), func(bool) {})
	if err != nil || comp.Choices != 2 || comp.Text != "one" || comp.FinishReason != "stop" {
		t.Fatalf("%v, %+v", err, comp)
	}
	comp, err = c.readStream(strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"one\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"), time.Now(), func(bool) {})
	if err != nil || comp.Choices != 1 {
		t.Fatalf("%v, %+v", err, comp)
	}
}
