package oai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ifkit/ifkit/lib/bytesize"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MaxBody is the default of Client.MaxReply.
const MaxBody = 64 << 20

// Client is safe for concurrent use; make one per process and endpoint role.
type Client struct {
	HTTP *http.Client
	key  string
	// MaxReply caps how much of a reply is read, streamed or not (0:
	// MaxBody): a runaway or hostile server cannot exhaust memory, which
	// stays within a small multiple of it per request in flight. A longer
	// reply is an error of kind reply_too_large.
	MaxReply int64
}

func (c *Client) maxReply() int64 {
	if c.MaxReply > 0 {
		return c.MaxReply
	}
	return MaxBody
}

// tooLarge is the error of a reply longer than the limit. It is not
// retried: a server that sends one (a runaway generation, a hostile
// proxy) would send it again, and each costs up to the limit in memory.
func tooLarge(limit int64) *Error {
	return &Error{Kind: KindTooLarge, Message: fmt.Sprintf("the reply is longer than %s (--max-reply)", bytesize.String(limit))}
}

// NewTransport returns an HTTP/1.1 transport that keeps one idle connection
// per request in flight. Go's default keeps 2 per host, which under -j 256
// forces thousands of new connections and halves throughput.
func NewTransport(concurrency int, connect time.Duration) *http.Transport {
	if concurrency < 1 {
		concurrency = 1
	}
	if connect <= 0 {
		connect = 10 * time.Second
	}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          2 * concurrency,
		MaxIdleConnsPerHost:   2 * concurrency,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   connect,
		ExpectContinueTimeout: time.Second,
		// Large requests and responses: fewer syscalls per 500 KB prompt.
		WriteBufferSize: 64 << 10,
		ReadBufferSize:  64 << 10,
		// HTTP/1.1 only, one connection per request in flight: what vLLM's
		// uvicorn speaks, and no head-of-line blocking of 256 streams on one
		// TCP connection. (A custom DialContext already turns h2 off; this
		// says so.)
		ForceAttemptHTTP2: false,
	}
}

// New makes a client for concurrency requests in flight. key may be empty
// (local servers without auth).
func New(concurrency int, connect time.Duration, key string) *Client {
	// No client-wide Timeout: each call sets its own deadlines.
	redact.Add(key)
	return &Client{HTTP: &http.Client{Transport: NewTransport(concurrency, connect)}, key: strings.TrimSpace(key)}
}

// Close drops idle connections.
func (c *Client) Close() { c.HTTP.CloseIdleConnections() }

// NormalizeBase turns a user's base URL into the form requests are built on:
// scheme and host required, "/v1" added when there is no path (OpenAI's
// convention is that the base includes it), no trailing slash.
func NormalizeBase(s string) (string, error) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q: want http(s)://host[:port][/v1]", Label(s))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// Label is a base URL fit for records and logs: without user info.
func Label(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	return u.String()
}

// twoParts is a request body in two slices, written straight to the
// connection's buffer (io.MultiReader's WriteTo would copy both through a
// new 32 KB buffer per request).
type twoParts struct {
	parts [2][]byte
}

func (t *twoParts) Read(p []byte) (int, error) {
	for i := range t.parts {
		if len(t.parts[i]) > 0 {
			n := copy(p, t.parts[i])
			t.parts[i] = t.parts[i][n:]
			return n, nil
		}
	}
	return 0, io.EOF
}

func (t *twoParts) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for i := range t.parts {
		n, err := w.Write(t.parts[i])
		total += int64(n)
		t.parts[i] = t.parts[i][n:]
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (*twoParts) Close() error { return nil }

// Call is one request.
type Call struct {
	Base   string // normalized base URL, e.g. http://127.0.0.1:8000/v1
	Path   string // PathChat or PathCompletions
	Head   []byte // sent before Body, which is then not copied (infer-batch's keys in front of a record's request)
	Body   []byte // the JSON body, model included (after Head)
	Stream bool   // the body asks for SSE

	// Deadlines of this attempt; zero means none. FirstByte runs until the
	// response headers (non-streaming: the whole generation, as servers send
	// headers at the end) or the first streamed event; Idle bounds the gap
	// between streamed events; Total bounds everything.
	FirstByte, Idle, Total time.Duration
}

// Paths of the two generation endpoints.
const (
	PathChat        = "/chat/completions"
	PathCompletions = "/completions"
)

// Usage is the token accounting the server reports, details included.
type Usage = record.Usage

// Completion is a successful answer.
type Completion struct {
	Fingerprint  string // system_fingerprint: the backend's build (llm-sim marks itself here)
	Text         string
	Reasoning    string // reasoning_content (vLLM, DeepSeek) or reasoning
	FinishReason string
	Usage        Usage
	HasUsage     bool
	// Choices is how many choices the reply held, counted up to 2: only the
	// first is read, and a server that ignores the request's n (Ollama)
	// answers with one.
	Choices int
	Latency time.Duration // request start to the end of the body
	TTFT    time.Duration // streaming only: to the first text or reasoning
}

// Error is a failed attempt. It is the only error type Complete returns
// (besides the caller's own context error).
type Error struct {
	Kind       string // see the Kind* constants
	Status     int    // HTTP status, 0 when none
	Message    string
	Retryable  bool
	RetryAfter time.Duration // from Retry-After / retry-after-ms, 0 when absent
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s (HTTP %d): %s", e.Kind, e.Status, e.Message)
	}
	return e.Kind + ": " + e.Message
}

// Error kinds. Retryable: network, timeout, rate_limited, server_error,
// truncated_stream, bad_response. Not: bad_request, context_length, auth,
// not_found, client_error.
const (
	KindNetwork         = "network"
	KindTimeout         = "timeout"
	KindRateLimited     = "rate_limited"
	KindServer          = "server_error"
	KindTruncatedStream = "truncated_stream"
	KindBadResponse     = "bad_response"
	KindBadRequest      = "bad_request"
	KindContextLength   = "context_length"
	KindAuth            = "auth"
	KindNotFound        = "not_found"
	KindClient          = "client_error"
	KindAborted         = "aborted"
	KindTooLarge        = "reply_too_large"
)

// Transient reports whether an error of this kind (and HTTP status) may go
// away by itself: the endpoint was down, slow, overloaded or cut the reply.
// --resume sends such records again by default: exactly those a run retries
// (409 included). The others (FinalStatuses, other 4xx, context_length) would
// fail the same way, and are kept unless --retry-errors.
func Transient(kind string, status int) bool {
	switch kind {
	case KindNetwork, KindTimeout, KindRateLimited, KindServer, KindTruncatedStream, KindBadResponse, KindAborted:
		return true
	}
	return status == 408 || status == 409 || status == 429 || status >= 500
}

type timeoutCause struct{ what string }

func (t *timeoutCause) Error() string { return t.what }

// Complete makes one attempt. The error is an *Error, or ctx's error when
// the caller cancelled.
func (c *Client) Complete(ctx context.Context, call Call) (*Completion, error) {
	start := time.Now()
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	arm := func(d time.Duration, what string) *time.Timer {
		if d <= 0 {
			return nil
		}
		t := time.AfterFunc(d, func() { cancel(&timeoutCause{what}) })
		timers = append(timers, t)
		return t
	}
	arm(call.Total, fmt.Sprintf("no complete answer within %v", call.Total))
	fb := arm(call.FirstByte, fmt.Sprintf("no first byte within %v", call.FirstByte))

	req, err := c.request(actx, call)
	if err != nil {
		return nil, &Error{Kind: KindClient, Message: redact.String(err.Error())}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, c.failure(ctx, actx, err)
	}
	defer func() {
		// Drain a little so the connection goes back to the pool.
		io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
	}()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, c.statusError(resp, body)
	}
	var comp *Completion
	if call.Stream && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var idle *time.Timer
		if call.Idle > 0 {
			idle = arm(call.Idle, fmt.Sprintf("stream stalled for %v", call.Idle))
		}
		limit := c.maxReply()
		comp, err = c.readStream(&limitedReader{r: resp.Body, left: limit, limit: limit}, start, func(first bool) {
			if first && fb != nil {
				fb.Stop()
			}
			if idle != nil {
				idle.Reset(call.Idle)
			}
		})
	} else {
		if fb != nil {
			fb.Stop()
		}
		var body []byte
		body, err = c.readLimited(resp.Body)
		if err == nil {
			comp, err = c.parseBody(body)
		}
	}
	if err != nil {
		var oe *Error
		if errors.As(err, &oe) {
			return nil, oe
		}
		return nil, c.failure(ctx, actx, err)
	}
	if !finished(comp.FinishReason) {
		// Ollama stops a runaway reply (31 identical tokens) this way: partial
		// text, no finish_reason, zero usage. Not an answer, and not the
		// endpoint's ill health: sent again, never recorded as a success.
		return nil, aborted(comp)
	}
	comp.Latency = time.Since(start)
	return comp, nil
}

// request builds the HTTP request of a call.
func (c *Client) request(ctx context.Context, call Call) (*http.Request, error) {
	body := call.Body
	if call.Head != nil && len(call.Head)+len(body) <= 64<<10 {
		// A short body goes in one piece: net/http writes an in-memory
		// body with the headers in one write(); any other reader costs a
		// second write() per request (at 5,000 requests a second).
		body = append(append(make([]byte, 0, len(call.Head)+len(body)), call.Head...), body...)
		call.Head = nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, call.Base+call.Path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if call.Head != nil {
		req.GetBody = func() (io.ReadCloser, error) {
			return &twoParts{parts: [2][]byte{call.Head, call.Body}}, nil
		}
		req.Body, _ = req.GetBody()
		req.ContentLength = int64(len(call.Head) + len(call.Body))
	}
	req.Header.Set("Content-Type", "application/json")
	if call.Stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	return req, nil
}

// finished reports whether a finish_reason says the reply ended normally:
// OpenAI's values and those of the servers that follow it (vLLM, SGLang,
// TGI, llama.cpp, Ollama). A reply cut at max_tokens ("length") is a success.
func finished(reason string) bool {
	switch reason {
	case "stop", "length", "tool_calls", "function_call", "content_filter", "eos", "eos_token", "stop_sequence", "end_turn", "max_tokens":
		return true
	}
	return false
}

func (c *Client) readLimited(r io.Reader) ([]byte, error) {
	limit := c.maxReply()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		return nil, tooLarge(limit)
	}
	return b, err
}

// limitedReader fails with tooLarge once more than its limit was read.
type limitedReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, tooLarge(l.limit)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, tooLarge(l.limit)
	}
	return n, err
}

// failure classifies a transport error: the caller's cancellation passes
// through; our own deadlines become timeouts; the rest is the network.
func (c *Client) failure(parent, actx context.Context, err error) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	var tc *timeoutCause
	if errors.As(context.Cause(actx), &tc) {
		return &Error{Kind: KindTimeout, Message: tc.what, Retryable: true}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: KindTimeout, Message: redact.String(err.Error()), Retryable: true}
	}
	return &Error{Kind: KindNetwork, Message: redact.String(err.Error()), Retryable: true}
}

// The HTTP statuses a request is retried after, and those it never is, as
// --help, README.md and docs/infer-batch.md name them (TestStatusLists checks
// statusError and the docs against these).
const (
	RetriedStatuses = "408, 409, 429 and 5xx"
	FinalStatuses   = "400/401/403/404/413/422"
)

func (c *Client) statusError(resp *http.Response, body []byte) *Error {
	e := &Error{Status: resp.StatusCode, Message: errorMessage(body, resp.Status)}
	e.RetryAfter = RetryAfter(resp.Header, time.Now())
	switch s := resp.StatusCode; {
	case s == 429:
		e.Kind, e.Retryable = KindRateLimited, true
	case s == 408:
		e.Kind, e.Retryable = KindTimeout, true
	case s == 409:
		e.Kind, e.Retryable = KindClient, true
	case s >= 500:
		e.Kind, e.Retryable = KindServer, true
	case s == 401 || s == 403:
		e.Kind = KindAuth
	case s == 404:
		e.Kind = KindNotFound
	case s == 400 || s == 413 || s == 422:
		e.Kind = KindBadRequest
		if IsContextLength(e.Message) {
			e.Kind = KindContextLength
		}
	default:
		e.Kind = KindClient
	}
	return e
}

// IsContextLength recognises the servers' "prompt too long" messages (vLLM,
// SGLang, TGI, OpenAI, llama.cpp).
func IsContextLength(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"context length", "context_length", "maximum context", "too many tokens", "prompt is too long", "exceeds the available context", "input is too long",
		"`max_new_tokens` must be <=", "must have less than"} { // TGI's two validation errors
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// errorMessage pulls the human text out of an error body: OpenAI's
// {"error":{"message"}}, vLLM's {"message"}, TGI's {"error":"..."}, FastAPI's
// {"detail"}; else the body itself, shortened.
func errorMessage(body []byte, status string) string {
	var v struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
		Detail  any    `json:"detail"`
	}
	msg := ""
	if unmarshal(body, &v) == nil {
		switch e := v.Error.(type) {
		case string:
			msg = e
		case map[string]any:
			if m, ok := e["message"].(string); ok {
				msg = m
			}
		}
		if msg == "" {
			msg = v.Message
		}
		if msg == "" && v.Detail != nil {
			msg = fmt.Sprint(v.Detail)
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if msg == "" {
		msg = status
	}
	return redact.Excerpt(msg, 1000)
}

// MaxRetryAfter caps what RetryAfter returns: a huge value (a broken or
// hostile server's) must not overflow into a negative wait, which would
// retry at once, in a storm. The engine caps it further (--retry-after-max).
const MaxRetryAfter = 24 * time.Hour

// RetryAfter reads retry-after-ms (OpenAI) or Retry-After in seconds or as an
// HTTP date, at most MaxRetryAfter. 0 when absent or unparsable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		var ms float64
		if _, err := fmt.Sscanf(v, "%g", &ms); err == nil && ms > 0 {
			return capWait(ms, time.Millisecond)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var s float64
	if _, err := fmt.Sscanf(v, "%g", &s); err == nil {
		if !(s > 0) {
			return 0
		}
		return capWait(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter)
	}
	return 0
}

// capWait is n units, at most MaxRetryAfter (n > 0; +Inf too).
func capWait(n float64, unit time.Duration) time.Duration {
	if n >= float64(MaxRetryAfter/unit) {
		return MaxRetryAfter
	}
	return time.Duration(n * float64(unit))
}
