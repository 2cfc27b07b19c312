package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Fingerprint is the system_fingerprint of every reply: it marks the reply
// as coming from the test double.
const Fingerprint = "llm-sim"

// DefaultModel is served when Options.Models is empty.
const DefaultModel = "llm-sim"

// DefaultDecayTokens is the prompt length at which --skill-decay has its full effect.
const DefaultDecayTokens = 131072

// Message is one chat message; Content is the text of the message (the text
// parts joined with "\n" when the request sent an array of parts).
type Message struct{ Role, Content string }

// Request is a decoded completion request as solvers see it.
type Request struct {
	Chat      bool // /v1/chat/completions (else /v1/completions)
	Messages  []Message
	Prompt    string
	MaxTokens int // max_completion_tokens, else max_tokens (as the profile reads them); 0: no limit
	Stop      []string
	Model     string         // the model that answers (the first served one when the body names none)
	Body      map[string]any // the whole decoded body
}

// Text is the completions prompt, or all message contents joined by "\n\n".
func (r *Request) Text() string {
	if !r.Chat {
		return r.Prompt
	}
	parts := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n\n")
}

// Params is what a solver gets besides the request.
type Params struct {
	// Skill is the effective skill for this request in [0,1]: the model's
	// skill after decay with prompt length (see EffectiveSkill). A solver
	// answers correctly with this probability, or at this fraction of items.
	Skill float64
	// Rand is seeded from the server seed, the model and the request text (and
	// the request's "seed" field): the same request gets the same reply.
	Rand *rand.Rand
	// PromptTokens is the server's estimate (see EstimateTokens).
	PromptTokens int
}

// Hit draws one item's outcome: true (answer it correctly) with probability Skill.
func (p Params) Hit() bool { return p.Rand.Float64() < p.Skill }

// Solver answers benchmark prompts it recognises. At skill 1 its replies
// must get full marks from every deterministic scorer of its benchmark
// (docs/llm-sim.md); below 1 it degrades item by item (see Params.Hit), so that
// the measured score tracks the skill. It must be safe for concurrent use.
type Solver interface {
	Name() string
	// Solve answers a prompt it recognises (ok=false otherwise). The first
	// solver that recognises the request answers it; otherwise the server
	// replies with plain filler text.
	Solve(req *Request, p Params) (reply string, ok bool)
}

// Thinker is a Solver whose traces would change its benchmark's score if
// they were scored: Think writes, for a request Solve answers, what the
// model considered (keywords, IDs, labels, JSON fragments, entries) in a
// form the benchmark's scorer and splitter would read. llm-sim --reasoning
// puts it before the answer, so a run shows whether the trace is left out
// (docs/llm-sim.md). It must not write the request's stop strings.
type Thinker interface {
	Think(req *Request, p Params) string
}

// Options configure a Server. Start from DefaultOptions: the zero value of
// Skill is 0, a model that gets everything wrong.
type Options struct {
	Addr   string   // listen address for Start; default 127.0.0.1:0 (a free port)
	Models []string // served model names; default ["llm-sim"]
	// ModelSkill overrides Skill for some models, so one server can play a
	// strong and a weak model.
	ModelSkill map[string]float64
	// Skill is the base skill in [0,1]; SkillDecay in [0,1] lowers it with the
	// prompt length: see EffectiveSkill.
	Skill, SkillDecay float64
	DecayTokens       int // prompt tokens at which decay is full; default 131072

	Latency      time.Duration // time to first token
	PrefillTPS   float64       // prompt tokens per second added to the time to first token; 0: no cost
	TokensPerSec float64       // generation speed after the first token; 0: instant
	// MaxConcurrency admits this many requests at once and queues the rest
	// (like vLLM's --max-num-seqs); 0: no cap. MaxQueue bounds the queue: a
	// request that finds it full gets 503 with Retry-After; 0: unbounded.
	MaxConcurrency, MaxQueue int

	FailRate   float64       // fraction of completion requests that get a fault
	Faults     FaultMix      // which faults, by weight; nil: all kinds equally
	RetryAfter time.Duration // the Retry-After of 429 (and of 503 "queue full"); default 1s
	StallFor   time.Duration // how long a stall holds a request; default 60s
	// FaultPlan, when set, picks the fault of each completion request instead
	// of FailRate and Faults (seq counts requests from 1). Tests use it to
	// script faults, e.g. "the first attempt of every prompt fails". It is
	// called concurrently.
	FaultPlan func(seq uint64, req *Request) Fault

	// MaxModelLen is the context in tokens (prompt and reply); 0: no limit.
	// A longer request gets what Overflow says ("": the profile's way).
	MaxModelLen int
	Overflow    Overflow
	// TokenScale multiplies every prompt count (usage.prompt_tokens,
	// /tokenize, the context check): a model whose tokenizer counts the
	// same text that many times llm-sim's tokens; 0 or 1: none.
	TokenScale float64
	// NoUsage leaves usage out of every reply, as some servers and proxies
	// do.
	NoUsage bool
	// CountText, when set, counts a prompt's texts (a model's tokenizer,
	// lib/tokens): the model's count instead of llm-sim's estimate, for
	// usage.prompt_tokens, /tokenize and the context. Not with the llamacpp
	// profile, whose chat count is its rendered template's.
	CountText func(string) int
	// Profile switches the quirks of one kind of server on together.
	Profile Profile

	Seed uint64
	// Reasoning makes the model think before it answers (think.go): a
	// trace in the text (ReasoningInline, ReasoningHarmony) or beside it
	// (ReasoningField, chat only), of ReasoningLen tokens (0: its natural
	// length), counted in max_tokens and usage like the answer; "": none.
	Reasoning    string
	ReasoningLen int
	Solvers      []Solver
	Log          *slog.Logger // per-request faults are logged at Debug; nil: no log

	// PrefixCacheTokens is the capacity of the prefix cache (prefixcache.go):
	// cached prompt tokens cost no prefill; 0: no cache.
	PrefixCacheTokens int
}

// DefaultOptions are those of llm-sim with no flags: full skill, no latency, no faults.
func DefaultOptions() Options {
	return Options{
		Addr:        "127.0.0.1:0",
		Models:      []string{DefaultModel},
		Skill:       1,
		DecayTokens: DefaultDecayTokens,
		RetryAfter:  time.Second,
		StallFor:    time.Minute,
	}
}

// EffectiveSkill is skill × (1 − decay × min(1, promptTokens/decayTokens)),
// clamped to [0,1]: with decay 0.5 and decayTokens 131072, a 64k-token prompt
// is answered at 75% of the base skill and a 128k one at 50%.
func EffectiveSkill(skill, decay float64, promptTokens, decayTokens int) float64 {
	if decayTokens <= 0 {
		decayTokens = DefaultDecayTokens
	}
	frac := min(1, float64(promptTokens)/float64(decayTokens))
	return min(1, max(0, skill*(1-decay*frac)))
}

// Stats are counters since New.
type Stats struct {
	Requests         int64            // all HTTP requests received
	ByPath           map[string]int64 // requests by URL path ("other" for unknown paths)
	OK               int64            // completion requests answered in full (stalled ones included)
	ClientErrors     int64            // 4xx replies for bad requests (malformed body, unknown model, …)
	Faults           map[Fault]int64  // injected faults by kind
	Solved           map[string]int64 // replies written by each solver
	MaxConcurrent    int              // most requests admitted at once
	QueuePeak        int              // most requests waiting for admission at once
	QueueFull        int64            // requests turned away with 503 because the queue was full (MaxQueue)
	ContextErrors    int64            // requests refused for not fitting MaxModelLen (also in ClientErrors)
	PromptsCut       int64            // prompts cut to MaxModelLen (OverflowTruncate)
	ContextShifts    int64            // OverflowTruncate: replies that ran past the room the prompt left
	PromptTokens     int64            // usage reported for completed requests
	CompletionTokens int64
}

// Server is an llm-sim instance. It is an http.Handler, so tests may also
// mount it on httptest.
type Server struct {
	opt     Options
	quirks  quirks
	models  map[string]bool
	sem     chan struct{}
	closing chan struct{}
	closeMu sync.Once

	seq      atomic.Uint64
	inflight atomic.Int64
	queued   atomic.Int64

	mu    sync.Mutex
	stats Stats

	bat batchStore  // /v1/files, /v1/batches (batch.go)
	pc  prefixCache // --prefix-cache-tokens and /metrics (prefixcache.go)

	srv *http.Server
	ln  net.Listener
}

// New makes a server; missing options take the defaults of DefaultOptions.
func New(opt Options) *Server {
	d := DefaultOptions()
	if opt.Addr == "" {
		opt.Addr = d.Addr
	}
	if len(opt.Models) == 0 {
		opt.Models = d.Models
	}
	if opt.DecayTokens <= 0 {
		opt.DecayTokens = d.DecayTokens
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = d.RetryAfter
	}
	if opt.StallFor <= 0 {
		opt.StallFor = d.StallFor
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opt: opt, quirks: quirksOf(opt.Profile), models: map[string]bool{}, closing: make(chan struct{})}
	s.pc.capacity = opt.PrefixCacheTokens
	if s.opt.Overflow == "" {
		s.opt.Overflow = s.quirks.overflow
	}
	for _, m := range opt.Models {
		s.models[m] = true
	}
	if opt.MaxConcurrency > 0 {
		s.sem = make(chan struct{}, opt.MaxConcurrency)
	}
	s.stats = Stats{ByPath: map[string]int64{}, Faults: map[Fault]int64{}, Solved: map[string]int64{}}
	return s
}

// Start listens on Options.Addr and serves in the background. It returns
// the base URL, e.g. http://127.0.0.1:40123/v1.
func (s *Server) Start() (string, error) {
	ln, err := net.Listen("tcp", s.opt.Addr)
	if err != nil {
		return "", err
	}
	s.ln = ln
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opt.Log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opt.Log.Error("serve", "err", err)
		}
	}()
	return s.BaseURL(), nil
}

// BaseURL is the OpenAI base URL of a started server ("" before Start).
func (s *Server) BaseURL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String() + "/v1"
}

// Close ends every request in progress (stalled and queued ones included)
// and stops the server. It is safe to call more than once, and on a server
// that was never started (e.g. one mounted on httptest).
func (s *Server) Close() error {
	s.closeMu.Do(func() { close(s.closing) })
	if s.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.ByPath = clone(s.stats.ByPath)
	st.Faults = clone(s.stats.Faults)
	st.Solved = clone(s.stats.Solved)
	return st
}

func clone[K comparable](m map[K]int64) map[K]int64 {
	c := make(map[K]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (s *Server) count(fn func(*Stats)) {
	s.mu.Lock()
	fn(&s.stats)
	s.mu.Unlock()
}

// ServeHTTP routes the OpenAI endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	key := p
	if !knownPath(p) {
		key = "other" // stray paths must not grow the stats without bound
	}
	s.count(func(st *Stats) { st.Requests++; st.ByPath[key]++ })
	w.Header().Set("x-llm-sim", "true")
	switch {
	case p == "/v1/chat/completions" || p == "/v1/completions":
		if r.Method != http.MethodPost {
			s.clientError(w, http.StatusMethodNotAllowed, "use POST for "+p, "invalid_request_error", "method_not_allowed")
			return
		}
		s.complete(w, r, p == "/v1/chat/completions")
	case p == "/v1/models":
		s.listModels(w, r)
	case strings.HasPrefix(p, "/v1/models/"):
		s.getModel(w, r, strings.TrimPrefix(p, "/v1/models/"))
	case p == "/health":
		w.WriteHeader(http.StatusOK)
	case batchPath(p):
		s.serveBatchAPI(w, r)
	case p == "/metrics":
		s.metrics(w)
	case p == "/tokenize" && s.quirks.tokenize != tokenizeNone:
		if r.Method != http.MethodPost {
			s.clientError(w, http.StatusMethodNotAllowed, "use POST for /tokenize", "invalid_request_error", "method_not_allowed")
			return
		}
		s.tokenize(w, r)
	case p == "/apply-template" && s.quirks.chatML && r.Method == http.MethodPost:
		s.applyTemplate(w, r)
	case p == "/props" && s.quirks.chatML && r.Method == http.MethodGet:
		s.llamaProps(w)
	case (p == "/api/version" || p == "/api/ps") && s.quirks.ollamaAPI && r.Method == http.MethodGet:
		s.ollamaAPI(w, p)
	default:
		s.clientError(w, http.StatusNotFound, fmt.Sprintf("llm-sim has no endpoint %s %s", r.Method, p), "invalid_request_error", "not_found")
	}
}

func knownPath(p string) bool {
	switch p {
	case "/v1/chat/completions", "/v1/completions", "/v1/models", "/health", "/tokenize", "/apply-template", "/props", "/api/version", "/api/ps", "/v1/files", "/v1/batches", "/metrics":
		return true
	}
	return strings.HasPrefix(p, "/v1/models/")
}

type modelObject struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len,omitempty"` // vLLM's
}

func (s *Server) model(id string) modelObject {
	m := modelObject{ID: id, Object: "model", Created: created, OwnedBy: s.quirks.ownedBy}
	if s.quirks.modelLen {
		m.MaxModelLen = s.opt.MaxModelLen
	}
	return m
}

// created is a fixed timestamp for the model list, so it is reproducible.
const created = 1735689600 // 2025-01-01

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.clientError(w, http.StatusMethodNotAllowed, "use GET for /v1/models", "invalid_request_error", "method_not_allowed")
		return
	}
	data := make([]modelObject, len(s.opt.Models))
	for i, m := range s.opt.Models {
		data[i] = s.model(m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request, id string) {
	if !s.models[id] && !s.quirks.anyModel {
		s.unknownModel(w, id)
		return
	}
	writeJSON(w, http.StatusOK, s.model(id))
}

// ParseModels reads --model values, "NAME" or "NAME=SKILL", into
// Options.Models and Options.ModelSkill.
func ParseModels(values []string) (models []string, skill map[string]float64, err error) {
	for _, v := range values {
		name, sk, hasSkill := strings.Cut(v, "=")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, nil, fmt.Errorf("--model %q: empty model name", v)
		}
		if slices.Contains(models, name) {
			return nil, nil, fmt.Errorf("--model %q: served twice", name)
		}
		models = append(models, name)
		if hasSkill {
			f, err := strconv.ParseFloat(strings.TrimSpace(sk), 64)
			if err != nil || f < 0 || f > 1 {
				return nil, nil, fmt.Errorf("--model %q: the skill after = must be a number in [0,1]", v)
			}
			if skill == nil {
				skill = map[string]float64{}
			}
			skill[name] = f
		}
	}
	return models, skill, nil
}

// Validate reports options out of range.
func (o Options) Validate() error {
	in01 := func(name string, v float64) error {
		if v < 0 || v > 1 {
			return fmt.Errorf("%s %g: want a number in [0,1]", name, v)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"--skill", o.Skill}, {"--skill-decay", o.SkillDecay}, {"--fail-rate", o.FailRate}} {
		if err := in01(c.name, c.v); err != nil {
			return err
		}
	}
	for m, v := range o.ModelSkill {
		if err := in01("skill of model "+m, v); err != nil {
			return err
		}
	}
	switch {
	case o.Latency < 0 || o.RetryAfter < 0 || o.StallFor < 0:
		return fmt.Errorf("durations must not be negative")
	case o.TokensPerSec < 0 || o.PrefillTPS < 0:
		return fmt.Errorf("token rates must not be negative")
	case o.MaxConcurrency < 0 || o.MaxQueue < 0 || o.DecayTokens < 0:
		return fmt.Errorf("--max-concurrency, --max-queue and --skill-decay-tokens must not be negative")
	case o.PrefixCacheTokens < 0:
		return fmt.Errorf("--prefix-cache-tokens must not be negative")
	case o.TokenScale < 0 || o.TokenScale > 0 && (o.TokenScale < 0.1 || o.TokenScale > 10):
		return fmt.Errorf("--token-scale %g: want 0.1 to 10 (1: llm-sim's own count)", o.TokenScale)
	case o.CountText != nil && o.Profile == ProfileLlamaCpp:
		return fmt.Errorf("--tokenizer does not apply to --profile llamacpp, whose chat count is its ChatML template's")
	case o.Reasoning != "" && o.Reasoning != ReasoningInline && o.Reasoning != ReasoningHarmony && o.Reasoning != ReasoningField:
		return fmt.Errorf("--reasoning %q: want %s, %s or %s", o.Reasoning, ReasoningInline, ReasoningHarmony, ReasoningField)
	case o.ReasoningLen < 0 || (o.ReasoningLen > 0 && o.Reasoning == ""):
		return fmt.Errorf("--reasoning-len %d: want 0 or more, with --reasoning", o.ReasoningLen)
	case o.MaxModelLen != 0 && o.MaxModelLen < MinModelLen:
		return fmt.Errorf("--max-model-len %d: want 0 (no limit) or at least %d (room for a chat template)", o.MaxModelLen, MinModelLen)
	}
	if _, err := ParseOverflow(string(o.Overflow)); o.Overflow != "" && err != nil {
		return fmt.Errorf("--overflow %v", err)
	}
	if _, err := ParseProfile(string(o.Profile)); err != nil {
		return fmt.Errorf("--profile %v", err)
	}
	return nil
}
