package sim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/record"
)

// maxBody bounds a request body: a 1M-token prompt is about 4 MiB.
const maxBody = 64 << 20

// reply is a generated answer, cut to the request's limits.
type reply struct {
	text, reasoning string
	finish          string
	solver          string
	usage           usage
}

type usage struct {
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	TotalTokens      int            `json:"total_tokens"`
	PromptDetails    *promptDetails `json:"prompt_tokens_details,omitempty"`
	Details          *usageDetails  `json:"completion_tokens_details,omitempty"`
}

type usageDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// promptDetails are the prompt tokens the prefix cache served, reported
// as vLLM (--enable-prompt-tokens-details) and OpenAI report them, when
// --prefix-cache-tokens is on.
type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request, chat bool) {
	seq := s.seq.Add(1)
	// The time to first token counts from here, as a real server's does: its
	// own work (reading and parsing the body, counting, the reply) is inside
	// the latency, not added to it. On the 2 cores it shares with the client
	// under test, llm-sim's work on 64 long prompts arriving at once would
	// otherwise stretch every wave and be charged to the client.
	begin := time.Now()
	req, co, ok := s.readRequest(w, r, chat)
	if !ok {
		return
	}
	req, pt, hash, ok := s.fitContext(w, req)
	if !ok {
		return
	}
	ctx := r.Context()
	fault, stalled, ok := s.injectFault(ctx, w, seq, req, r.Header.Get(FaultHeader))
	if !ok {
		return
	}
	if stalled {
		begin = time.Now()
	}
	release, queued, ok := s.admit(ctx, w)
	if !ok {
		return
	}
	defer release()
	if queued {
		begin = time.Now() // a waiting request's latency starts with its slot
	}
	s.answer(ctx, w, req, co, seq, pt, hash, fault, begin)
}

// readRequest reads and parses a request and resolves its model; when it
// cannot, it answers the request itself and returns false.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, chat bool) (*Request, callOptions, bool) {
	b, ok := s.readBody(w, r)
	if !ok {
		return nil, callOptions{}, false
	}
	req, co, err := parseRequest(b, chat, s.quirks)
	putBody(b)
	if err != nil {
		s.count(func(st *Stats) { st.ClientErrors++ })
		d := errorDetail{Message: err.Error(), Type: "invalid_request_error"}
		var br *badRequest
		if errors.As(err, &br) && br.param != "" {
			d.Param = &br.param
		}
		s.writeErrorDetail(w, http.StatusBadRequest, d)
		return nil, callOptions{}, false
	}
	switch {
	case req.Model == "":
		req.Model = s.opt.Models[0]
	case s.models[req.Model]:
	case s.quirks.anyModel:
		// llama.cpp answers with its one model whatever the name; the
		// reply names the model asked for, as llama.cpp's does.
	default:
		s.unknownModel(w, req.Model)
		return nil, callOptions{}, false
	}
	return req, co, true
}

// fitContext counts the prompt (pt tokens, hash its requestHash) and
// applies --max-model-len: a prompt that does not fit is refused (answered
// here, false) or, with --overflow truncate, cut (the request returned).
func (s *Server) fitContext(w http.ResponseWriter, req *Request) (_ *Request, pt int, hash uint64, ok bool) {
	pt, hash = s.measure(req)
	if !s.overflow(pt, req.MaxTokens) {
		return req, pt, hash, true
	}
	if s.opt.Overflow == OverflowError {
		s.contextError(w, req, pt)
		return nil, 0, 0, false
	}
	if pt > s.opt.MaxModelLen {
		req, pt = s.truncatePrompt(req, pt)
		hash = requestHash(req, nil)
		s.count(func(st *Stats) { st.PromptsCut++ })
	}
	return req, pt, hash, true
}

// injectFault draws the request's fault and answers those that end it
// before any generation (false); a stall waits first (stalled).
func (s *Server) injectFault(ctx context.Context, w http.ResponseWriter, seq uint64, req *Request, header string) (fault Fault, stalled, ok bool) {
	fault, err := s.faultFor(seq, req, header)
	if err != nil {
		s.clientError(w, http.StatusBadRequest, err.Error(), "invalid_request_error", "")
		return NoFault, false, false
	}
	if fault != NoFault {
		s.count(func(st *Stats) { st.Faults[fault]++ })
		s.opt.Log.Debug("fault", "seq", seq, "fault", string(fault))
	}
	switch fault {
	case Fault429:
		s.retryAfter(w)
		s.writeError(w, http.StatusTooManyRequests, "Rate limit reached (simulated by llm-sim)", "requests", "rate_limit_exceeded")
		return fault, false, false
	case Fault500:
		s.writeError(w, http.StatusInternalServerError, "The server had an error while processing your request (simulated by llm-sim)", "server_error", "internal_error")
		return fault, false, false
	case Fault503:
		s.retryAfter(w)
		s.writeError(w, http.StatusServiceUnavailable, "The engine is currently overloaded (simulated by llm-sim)", "server_error", "overloaded")
		return fault, false, false
	case FaultReset:
		resetConn(w)
		return fault, false, false
	case FaultStall:
		// A hung request holds no slot: it models a stuck proxy or connection.
		if !s.sleep(ctx, s.opt.StallFor) {
			s.interrupted(ctx, w)
			return fault, false, false
		}
		return fault, true, true
	}
	return fault, false, true
}

// answer generates the reply in the request's slot and sends it whole or
// streamed, its first token due at the latency (and prefill) from begin,
// then counts it.
func (s *Server) answer(ctx context.Context, w http.ResponseWriter, req *Request, co callOptions, seq uint64, pt int, hash uint64, fault Fault, begin time.Time) {
	rep := s.generate(req, co, pt, hash)
	if fault == FaultAbort {
		rep = aborted(rep, req.MaxTokens)
	}
	ttft := s.opt.Latency
	pre := s.prefillTokens(req, pt)
	if s.opt.PrefillTPS > 0 {
		ttft += time.Duration(float64(pre) / s.opt.PrefillTPS * float64(time.Second))
	}
	if s.pc.capacity > 0 {
		rep.usage.PromptDetails = &promptDetails{CachedTokens: pt - pre}
	}
	ttft = max(ttft-time.Since(begin), 0)
	var done bool
	if co.stream {
		done = s.writeStream(ctx, w, req, co, rep, seq, ttft, fault == FaultTruncate)
	} else {
		done = s.writeWhole(ctx, w, req, rep, seq, ttft, fault == FaultTruncate)
	}
	if !done || fault == FaultAbort {
		return
	}
	shifted := s.opt.Overflow == OverflowTruncate && s.opt.MaxModelLen > 0 && pt+rep.usage.CompletionTokens > s.opt.MaxModelLen
	s.count(func(st *Stats) {
		if shifted {
			st.ContextShifts++
		}
		st.OK++
		st.PromptTokens += int64(rep.usage.PromptTokens)
		st.CompletionTokens += int64(rep.usage.CompletionTokens)
		if rep.solver != "" {
			st.Solved[rep.solver]++
		}
	})
}

// readBody reads a request body up to maxBody; when it cannot, it answers
// the request itself and returns false. The buffer has the declared length:
// a 455 KB prompt read by io.ReadAll is copied and cleared a dozen times as
// the buffer doubles, on the cores the client under test shares. It comes
// from bodyBufs, where the caller puts it back (putBody) once the body is
// decoded.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	need := int(min(max(r.ContentLength, 0), maxBody)) + bytes.MinRead
	var b []byte
	if p, _ := bodyBufs.Get().(*[]byte); p != nil && cap(*p) >= need {
		b = (*p)[:0]
	} else {
		b = make([]byte, 0, need)
	}
	buf := bytes.NewBuffer(b)
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil {
		return buf.Bytes(), true
	}
	putBody(buf.Bytes())
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		s.clientError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxBody), "invalid_request_error", "request_too_large")
	} else {
		s.clientError(w, http.StatusBadRequest, "reading the body: "+err.Error(), "invalid_request_error", "")
	}
	return nil, false
}

// bodyBufs holds the buffers of bodies decoded (*[]byte): a new one of
// 455 KB is cleared by the runtime before it is read into, and is garbage
// as soon as the body is decoded (the decoded strings are copies).
var bodyBufs sync.Pool

// putBody gives the buffer of a body from readBody back to bodyBufs; the
// caller keeps nothing of it.
func putBody(b []byte) {
	bodyBufs.Put(&b)
}

// generate answers the request (of pt prompt tokens and requestHash hash):
// the first solver that recognises it, else filler; then stop and
// max_tokens apply, and the context: without max_tokens, a reply ends where
// the context is full.
func (s *Server) generate(req *Request, co callOptions, pt int, hash uint64) reply {
	limit := req.MaxTokens
	if L := s.opt.MaxModelLen; limit == 0 && L > 0 && s.opt.Overflow == OverflowError {
		limit = max(1, L-pt)
	} else if limit == 0 && L > 0 && s.quirks.ollamaFields {
		// Ollama bounds a request without a limit at 10 × num_ctx
		// (llm/server.go: "to avoid the model running on forever").
		limit = 10 * L
	}
	skill := s.opt.Skill
	if v, ok := s.opt.ModelSkill[req.Model]; ok {
		skill = v
	}
	skill = EffectiveSkill(skill, s.opt.SkillDecay, pt, s.opt.DecayTokens)
	seed := replySeed(hash, co)
	// Every solver gets a fresh RNG, so one that declines leaves no trace.
	newRand := func() *rand.Rand { return rand.New(rand.NewPCG(s.opt.Seed, seed)) }
	var rep reply
	text, found := "", false
	var solver Solver
	for _, sv := range s.opt.Solvers {
		if text, found = sv.Solve(req, Params{Skill: skill, Rand: newRand(), PromptTokens: pt}); found {
			rep.solver, solver = sv.Name(), sv
			break
		}
	}
	if !found {
		text = filler(newRand())
	}
	rep.usage = usage{PromptTokens: pt}
	if mode := s.opt.Reasoning; mode != "" && (req.Chat || mode != ReasoningField) {
		// The trace draws from an RNG of its own: the answer is the one
		// the same request gets without --reasoning.
		p := Params{Skill: skill, Rand: rand.New(rand.NewPCG(s.opt.Seed^1, seed)), PromptTokens: pt}
		rep.think(mode, s.trace(req, solver, p, rep.solver), text, req.Stop, limit)
	} else {
		rep.text, rep.finish = applyLimits(text, req.Stop, limit)
		rep.usage.CompletionTokens = EstimateTokens(rep.text)
	}
	rep.usage.TotalTokens = rep.usage.PromptTokens + rep.usage.CompletionTokens
	return rep
}

// admit waits for a concurrency slot (queued: it had to wait). It answers
// the request itself (and returns false) when the queue is full or the wait
// was cut short.
func (s *Server) admit(ctx context.Context, w http.ResponseWriter) (release func(), queued, ok bool) {
	enter := func() func() {
		n := int(s.inflight.Add(1))
		s.count(func(st *Stats) { st.MaxConcurrent = max(st.MaxConcurrent, n) })
		return func() {
			s.inflight.Add(-1)
			if s.sem != nil {
				<-s.sem
			}
		}
	}
	if s.sem == nil {
		return enter(), false, true
	}
	select {
	case s.sem <- struct{}{}:
		return enter(), false, true
	default:
	}
	q := int(s.queued.Add(1))
	if s.opt.MaxQueue > 0 && q > s.opt.MaxQueue {
		s.queued.Add(-1)
		s.count(func(st *Stats) { st.QueueFull++ })
		s.retryAfter(w)
		s.writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("llm-sim: %d requests are running and %d waiting (--max-queue)", s.opt.MaxConcurrency, s.opt.MaxQueue), "server_error", "overloaded")
		return nil, false, false
	}
	s.count(func(st *Stats) { st.QueuePeak = max(st.QueuePeak, q) })
	defer s.queued.Add(-1)
	select {
	case s.sem <- struct{}{}:
		return enter(), true, true
	case <-ctx.Done():
	case <-s.closing:
	}
	s.interrupted(ctx, w)
	return nil, false, false
}

// sleep waits d; false when the client left or the server is closing.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.closing:
	}
	return false
}

// interrupted answers a request cut short before its reply started: a client
// that left needs nothing, one still there learns that the server is closing.
func (s *Server) interrupted(ctx context.Context, w http.ResponseWriter) {
	if ctx.Err() == nil {
		s.writeError(w, http.StatusServiceUnavailable, "llm-sim is shutting down", "server_error", "shutting_down")
	}
}

func (s *Server) retryAfter(w http.ResponseWriter) {
	d := s.opt.RetryAfter
	w.Header().Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
	w.Header().Set("retry-after-ms", strconv.FormatInt(d.Milliseconds(), 10))
}

// resetConn drops the connection without a response; where the
// ResponseWriter cannot be hijacked (HTTP/2, recorders) the handler aborts.
func resetConn(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // close with RST: "connection reset by peer"
			}
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (s *Server) clientError(w http.ResponseWriter, status int, msg, typ, code string) {
	s.count(func(st *Stats) { st.ClientErrors++ })
	s.writeError(w, status, msg, typ, code)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := record.Marshal(v)
	if err != nil {
		panic(err) // only the server's own types are marshalled here
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// Non-streaming replies.

type chatMessage struct {
	Role      string  `json:"role"`
	Content   string  `json:"content"`
	Refusal   *string `json:"refusal"` // always null, as OpenAI sends it
	Reasoning string  `json:"reasoning_content,omitempty"`
}

type choice struct {
	Index        int          `json:"index"`
	Message      *chatMessage `json:"message,omitempty"`
	Text         *string      `json:"text,omitempty"`
	Logprobs     any          `json:"logprobs"`
	FinishReason *string      `json:"finish_reason"` // null when aborted
}

type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	SystemFingerprint string   `json:"system_fingerprint"`
	Choices           []choice `json:"choices"`
	Usage             *usage   `json:"usage,omitempty"`
}

func completionID(chat bool, seq uint64) string {
	if chat {
		return "chatcmpl-sim-" + strconv.FormatUint(seq, 10)
	}
	return "cmpl-sim-" + strconv.FormatUint(seq, 10)
}

// perToken is the time between two generated tokens.
func (s *Server) perToken() time.Duration {
	if s.opt.TokensPerSec <= 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / s.opt.TokensPerSec)
}

// writeWhole sends the reply once it is fully generated; truncated, it
// declares the full Content-Length and sends half, so the connection ends early.
func (s *Server) writeWhole(ctx context.Context, w http.ResponseWriter, req *Request, rep reply, seq uint64, ttft time.Duration, truncate bool) bool {
	if !s.sleep(ctx, ttft+time.Duration(rep.usage.CompletionTokens)*s.perToken()) {
		s.interrupted(ctx, w)
		return false
	}
	c := completion{
		ID: completionID(req.Chat, seq), Created: time.Now().Unix(), Model: req.Model,
		SystemFingerprint: Fingerprint,
	}
	if !s.opt.NoUsage {
		c.Usage = &rep.usage
	}
	ch := choice{}
	if rep.finish != "" {
		ch.FinishReason = &rep.finish
	}
	if req.Chat {
		c.Object = "chat.completion"
		ch.Message = &chatMessage{Role: "assistant", Content: rep.text, Reasoning: rep.reasoning}
	} else {
		c.Object = "text_completion"
		ch.Text = &rep.text
	}
	c.Choices = []choice{ch}
	if !truncate {
		writeJSON(w, http.StatusOK, c)
		return true
	}
	b, _ := record.Marshal(c)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b[:len(b)/2])
	return false
}

// Streaming replies.

// chunker writes SSE chunks with a prefix built once per request: a
// benchmark streams millions of them.
type chunker struct {
	bw       *bufio.Writer
	chat     bool
	prefix   []byte // data: {"id":...,"choices":[{"index":0,
	midUsage string // what chunks before the last say about usage
	buf      []byte
}

// newChunker: with include_usage every chunk but the usage chunk has
// "usage":null, as OpenAI sends it, or, with zeroUsage, a zeroed usage
// object on /v1/completions (Ollama's: a client that keeps the first usage
// it sees records 0 tokens).
func newChunker(bw *bufio.Writer, req *Request, co callOptions, seq uint64, zeroUsage bool) *chunker {
	obj := "text_completion"
	if req.Chat {
		obj = "chat.completion.chunk"
	}
	p := []byte(`data: {"id":"` + completionID(req.Chat, seq) + `","object":"` + obj + `","created":` +
		strconv.FormatInt(time.Now().Unix(), 10) + `,"model":`)
	p = append(p, record.Quote(req.Model)...)
	p = append(p, `,"system_fingerprint":"`+Fingerprint+`","choices":[{"index":0,`...)
	c := &chunker{bw: bw, chat: req.Chat, prefix: p}
	switch {
	case !co.includeUsage:
	case zeroUsage && !req.Chat:
		c.midUsage = `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
	default:
		c.midUsage = `,"usage":null`
	}
	return c
}

// role writes the first chat chunk: as OpenAI's, it names the role with empty content.
func (c *chunker) role() {
	b := append(c.buf[:0], c.prefix...)
	b = append(b, `"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]`+c.midUsage+"}\n\n"...)
	c.buf = b
	c.bw.Write(b)
}

// delta writes one chunk; field is "content" or "reasoning_content" (chat;
// "" for an empty delta); on /v1/completions the text goes to "text".
func (c *chunker) delta(field, text string, finish string) {
	b := append(c.buf[:0], c.prefix...)
	if c.chat {
		b = append(b, `"delta":{`...)
		if field != "" {
			b = append(b, '"')
			b = append(b, field...)
			b = append(b, `":`...)
			b = append(b, record.Quote(text)...)
		}
		b = append(b, '}')
	} else {
		b = append(b, `"text":`...)
		b = append(b, record.Quote(text)...)
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, record.Quote(finish)...)
	}
	b = append(b, "}]"...)
	b = append(b, c.midUsage...)
	b = append(b, "}\n\n"...)
	c.buf = b
	c.bw.Write(b)
}

// finishWithUsage is llama.cpp's last chunk: the finish_reason and the usage
// together, whether or not the client asked for usage.
func (c *chunker) finishWithUsage(finish string, u usage) {
	ub, _ := record.Marshal(u)
	b := append(c.buf[:0], c.prefix...)
	if c.chat {
		b = append(b, `"delta":{}`...)
	} else {
		b = append(b, `"text":""`...)
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = append(b, record.Quote(finish)...)
	b = append(b, `}],"usage":`...)
	b = append(b, ub...)
	b = append(b, "}\n\n"...)
	c.buf = b
	c.bw.Write(b)
}

func (c *chunker) usage(u usage) {
	ub, _ := record.Marshal(u)
	b := append(c.buf[:0], c.prefix[:len(c.prefix)-len(`[{"index":0,`)]...) // ...,"choices":
	b = append(b, `[],"usage":`...)
	b = append(b, ub...)
	b = append(b, "}\n\n"...)
	c.buf = b
	c.bw.Write(b)
}

// writeStream sends the reply as server-sent events: the first token after
// ttft, the next ones at TokensPerSec, a chunk with finish_reason, the usage
// chunk when asked for, and "data: [DONE]". Truncated, it stops halfway
// with no finish chunk and no [DONE]; aborted (no finish reason), it sends
// the whole partial text and stops the same way, as Ollama's stream ends
// when its repetition guard fires.
func (s *Server) writeStream(ctx context.Context, w http.ResponseWriter, req *Request, co callOptions, rep reply, seq uint64, ttft time.Duration, truncate bool) bool {
	fl, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if fl != nil {
		fl.Flush()
	}
	bw := bufio.NewWriterSize(w, 16<<10)
	flush := func() {
		bw.Flush()
		if fl != nil {
			fl.Flush()
		}
	}
	if !s.sleep(ctx, ttft) {
		abortStream()
		return false
	}
	c := newChunker(bw, req, co, seq, s.quirks.zeroUsageChunks && !s.opt.NoUsage)
	type tok struct{ field, text string }
	var toks []tok
	for _, p := range Pieces(rep.reasoning) {
		toks = append(toks, tok{"reasoning_content", p})
	}
	for _, p := range Pieces(rep.text) {
		toks = append(toks, tok{"content", p})
	}
	if truncate {
		toks = toks[:len(toks)/2]
	}
	if req.Chat {
		c.role()
	}
	per := s.perToken()
	start := time.Now()
	for i, t := range toks {
		if per > 0 {
			// Tokens due by now go out together; wait (flushed) only when ahead.
			if d := time.Until(start.Add(time.Duration(i) * per)); d > time.Millisecond {
				flush()
				if !s.sleep(ctx, d) {
					abortStream()
					return false
				}
			}
		}
		c.delta(t.field, t.text, "")
	}
	if truncate || rep.finish == "" {
		flush()
		return false
	}
	if s.quirks.usageOnFinish && !s.opt.NoUsage {
		c.finishWithUsage(rep.finish, rep.usage)
	} else {
		c.delta("", "", rep.finish)
	}
	if co.includeUsage && !s.opt.NoUsage {
		c.usage(rep.usage)
	}
	bw.WriteString("data: [DONE]\n\n")
	flush()
	return true
}

// abortStream ends a stream cut short by the client leaving or the server
// closing: the connection is dropped, so the client sees an error rather
// than a clean end.
func abortStream() {
	panic(http.ErrAbortHandler)
}
