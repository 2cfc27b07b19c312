package infer

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/progress"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
)

// stats are the run's counters: the progress line, the summary and --stats.
type stats struct {
	start    time.Time
	end      time.Time
	inflight atomic.Int64
	attempts atomic.Int64
	retries  atomic.Int64
	passed   atomic.Int64 // written without a call
	ok       atomic.Int64 // failures are app.Run's tally (Failed, FailuresByKind)
	resumed  atomic.Int64
	cached   atomic.Int64 // answered from the cache (also in ok)
	complT   atomic.Int64 // the completion tokens of tokens, for the progress line
	total    atomic.Int64 // input records, when counted; -1 unknown

	mu             sync.Mutex
	latency, ttft  []float32
	attemptFailBy  map[string]int64 // failed attempts by kind
	attemptStatus  map[int]int64
	finishReasons  map[string]int64
	preflightFails int64
	cutRecords     int64
	cutTokens      int64
	truncatedIDs   []string // flagged server_truncated
	checks         map[cuts.Check]int64
	noUsage        int64       // replies without usage: not checkable at all
	maxMargin      float64     // the widest margin of a calibrated check
	runawayIDs     []string    // replies stopped by the server's own limit
	resumedModels  []string    // the models of the records taken from earlier outputs
	tokens         cost.Tokens // of every reply received: paid
	cacheTokens    cost.Tokens // of the replies the cache answered
	traces         traceCounts // the reasoning rule's work (lib/reasoning)
	lowestLimit    int
	endpoints      []endpointStats
}

func newStats() *stats {
	s := &stats{start: time.Now(), attemptFailBy: map[string]int64{}, attemptStatus: map[int]int64{}, finishReasons: map[string]int64{}, checks: map[cuts.Check]int64{}}
	s.total.Store(-1)
	return s
}

func (s *stats) sent()     { s.attempts.Add(1); s.inflight.Add(1) }
func (s *stats) returned() { s.inflight.Add(-1) }

func (s *stats) attemptFailed(e *oai.Error) {
	s.mu.Lock()
	s.attemptFailBy[e.Kind]++
	if e.Status != 0 {
		s.attemptStatus[e.Status]++
	}
	s.mu.Unlock()
}

// truncated records a server_truncated record and returns how many so far.
func (s *stats) truncated(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncatedIDs = append(s.truncatedIDs, id)
	return len(s.truncatedIDs)
}

// checked counts how well a record was checked for a cut; the records
// found cut count among those checked exactly (a cut was seen).
func (s *stats) checked(v cuts.Verdict, got int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if got <= 0 {
		s.noUsage++
	}
	if v.Cut {
		s.checks[cuts.Exact]++
		return
	}
	s.checks[v.Check]++
	if v.Check == cuts.Calibrated {
		s.maxMargin = max(s.maxMargin, v.Margin)
	}
}

// runaway counts a reply the server's own limit stopped and returns how
// many so far.
func (s *stats) runaway(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runawayIDs = append(s.runawayIDs, id)
	return len(s.runawayIDs)
}

func (s *stats) resumedModel(m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.resumedModels, m) {
		s.resumedModels = append(s.resumedModels, m)
	}
}

func (s *stats) preflight() {
	s.mu.Lock()
	s.preflightFails++
	s.mu.Unlock()
}

// success counts an answered request; ok counts records, in succeed, once
// apply kept the answer.
func (s *stats) success(c *oai.Completion, cl *call) {
	s.complT.Add(int64(c.Usage.CompletionTokens))
	s.mu.Lock()
	s.tokens.Add(c.Usage)
	s.latency = append(s.latency, float32(ms(c.Latency)))
	if c.TTFT > 0 {
		s.ttft = append(s.ttft, float32(ms(c.TTFT)))
	}
	s.finishReasons[c.FinishReason]++
	if cl.cut > 0 {
		s.cutRecords++
		s.cutTokens += int64(cl.cut)
	}
	s.mu.Unlock()
}

// traceCounts are the replies the reasoning rule found a trace in, by
// format, the trace's tokens, and those whose trace never ended.
type traceCounts struct {
	ByFormat   map[string]int64 `json:"by_format"`
	Tokens     int64            `json:"tokens"`
	Unfinished int64            `json:"unfinished"`
}

// reasoned counts what the reasoning rule found in a reply.
func (s *stats) reasoned(resp *record.Response) {
	if resp.ReasoningFormat == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.traces.ByFormat == nil {
		s.traces.ByFormat = map[string]int64{}
	}
	s.traces.ByFormat[resp.ReasoningFormat]++
	s.traces.Tokens += int64(resp.ReasoningTokens)
	if resp.ReasoningUnfinished {
		s.traces.Unfinished++
	}
}

// servedFromCache counts an answer the cache gave.
func (s *stats) servedFromCache(resp *record.Response) {
	s.ok.Add(1)
	s.cached.Add(1)
	s.mu.Lock()
	s.cacheTokens.Add(resp.Usage)
	s.finishReasons[resp.FinishReason]++
	s.mu.Unlock()
}

func (s *stats) finish(e *engine) {
	s.end = time.Now()
	_, _, lowest := e.lim.state()
	s.mu.Lock()
	s.lowestLimit = lowest
	s.endpoints = e.eps.stats()
	s.mu.Unlock()
}

// status is the tool's part of the progress line.
func (e *engine) status() string {
	s := e.st
	el := time.Since(s.start).Seconds()
	failed := e.r.Failed.Load()
	done := s.ok.Load() + failed + s.passed.Load()
	inflight, limit, _ := e.lim.state()
	txt := fmt.Sprintf("in flight %d", inflight)
	if limit < e.opt.Concurrency {
		txt += fmt.Sprintf(" (limit %d/%d after 429s)", limit, e.opt.Concurrency)
	}
	txt += fmt.Sprintf(", %.1f req/s, %.0f tok/s out, %d errors", float64(done)/max(el, 1e-9), float64(s.complT.Load())/max(el, 1e-9), failed)
	if n := e.eps.pausedNow(time.Now()); n > 0 {
		txt += fmt.Sprintf(", %d endpoint(s) paused", n)
	}
	if total := s.total.Load(); total >= 0 {
		written := e.r.Written.Load()
		txt = fmt.Sprintf("%d/%d done, ", written, total) + txt
		if rate := float64(done) / max(el, 1e-9); done > 0 && total > written {
			txt += fmt.Sprintf(", ETA %s", (time.Duration(float64(total-written)/rate) * time.Second).Round(time.Second))
		}
	}
	return txt
}

// startTotal counts the input records in the background, for done/total and
// the ETA, when progress is shown and every input is a file.
func (e *engine) startTotal() {
	r := e.r
	mode := r.String("progress")
	f, _ := r.Stderr().(*os.File)
	if mode == "never" || (mode != "always" && !progress.IsTerminal(f)) {
		return
	}
	files := r.Args().Slice()
	if len(files) == 0 {
		return
	}
	for _, name := range files {
		if name == "-" {
			return
		}
	}
	go func() {
		var n int64
		for _, name := range files {
			in, err := stream.Open(name, nil)
			if err != nil {
				return
			}
			for {
				line, _, err := in.Next()
				if err != nil {
					break
				}
				if r.Shard.N <= 1 {
					n++
				} else if rec, err := record.Parse(line); err == nil && r.Shard.Keep(rec.ID()) {
					n++
				}
				if r.Ctx.Err() != nil {
					in.Close()
					return
				}
			}
			in.Close()
		}
		e.st.total.Store(n)
	}()
}

type dist struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

func distOf(v []float32) *dist {
	if len(v) == 0 {
		return nil
	}
	v = slices.Clone(v)
	slices.Sort(v)
	var sum float64
	for _, x := range v {
		sum += float64(x)
	}
	q := func(p float64) float64 {
		i := int(p*float64(len(v)) + 0.5)
		return float64(v[min(max(i-1, 0), len(v)-1)])
	}
	return &dist{N: len(v), Mean: sum / float64(len(v)), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: float64(v[len(v)-1])}
}

// Summary is the --stats file. Latencies are per successful attempt, in
// milliseconds, named as vllm bench serve names them where they match.
type Summary struct {
	Tool      string          `json:"tool"`
	Model     string          `json:"model"`
	Endpoints []endpointStats `json:"endpoints"`
	Started   time.Time       `json:"started"`
	Records   recordCounts    `json:"records"`
	Requests  requestCounts   `json:"requests"`
	LatencyMS *dist           `json:"latency_ms,omitempty"`
	TTFTMS    *dist           `json:"ttft_ms,omitempty"`
	// The account: answers by origin, tokens paid and from the cache, the
	// wall time (wall_s) and, with --price, the cost.
	cost.Account
	Cache       *cache.Stats     `json:"cache,omitempty"`
	Throughput  throughput       `json:"throughput"`
	Finish      map[string]int64 `json:"finish_reasons"`
	Concurrency concurrency      `json:"concurrency"`
	// ServerTruncated counts the records whose prompt the server cut
	// (response.server_truncated) and ServerTruncatedIDs names them.
	ServerTruncated    int64    `json:"server_truncated"`
	ServerTruncatedIDs []string `json:"server_truncated_ids,omitempty"`
	// CutCheck counts the records by how well they were checked for a cut
	// (response.cut_check; a record found cut counts as exact) and gives the
	// widest margin of the calibrated ones.
	CutCheck cutChecks `json:"cut_check"`
	// Runaway counts the replies stopped by the server's own limit
	// (response.runaway) and RunawayIDs names them.
	Runaway    int64    `json:"runaway"`
	RunawayIDs []string `json:"runaway_ids,omitempty"`
	// Reasoning counts the replies that held a reasoning trace, when any did.
	Reasoning *traceCounts `json:"reasoning,omitempty"`
}

type cutChecks struct {
	Exact      int64   `json:"exact"`
	Calibrated int64   `json:"calibrated"`
	Unchecked  int64   `json:"unchecked"`
	NoUsage    int64   `json:"no_usage"` // of the unchecked: the reply said nothing to check
	Margin     float64 `json:"margin,omitempty"`
}

type recordCounts struct {
	Read            int64            `json:"read"`
	Written         int64            `json:"written"`
	OK              int64            `json:"ok"`
	Failed          int64            `json:"failed"`
	FailedByKind    map[string]int64 `json:"failed_by_kind,omitempty"`
	PassedThrough   int64            `json:"passed_through"`
	Resumed         int64            `json:"resumed"`
	PreflightFailed int64            `json:"preflight_failed"`
	ContextCut      int64            `json:"context_cut"`
	ContextCutTok   int64            `json:"context_cut_tokens"`
}

type requestCounts struct {
	Sent         int64            `json:"sent"`
	Retries      int64            `json:"retries"`
	FailedByKind map[string]int64 `json:"failed_by_kind,omitempty"`
	FailedByHTTP map[string]int64 `json:"failed_by_status,omitempty"`
}

type throughput struct {
	RequestsPerS     float64 `json:"requests_per_s"`
	OutputTokensPerS float64 `json:"output_tokens_per_s"`
	TotalTokensPerS  float64 `json:"total_tokens_per_s"`
}

type concurrency struct {
	Max         int  `json:"max"`
	Adaptive    bool `json:"adaptive"`
	LowestLimit int  `json:"lowest_limit"`
}

func (e *engine) summary() Summary {
	s := e.st
	s.mu.Lock()
	defer s.mu.Unlock()
	wall := s.end.Sub(s.start).Seconds()
	byHTTP := map[string]int64{}
	for k, v := range s.attemptStatus {
		byHTTP[fmt.Sprint(k)] = v
	}
	ok := s.ok.Load()
	acct := cost.Account{Answers: cost.Answers{Paid: ok - s.cached.Load(), Cache: s.cached.Load(), Resume: s.resumed.Load()},
		Tokens: s.tokens, CacheTokens: s.cacheTokens, WallS: wall}
	acct.Priced(e.opt.Price)
	var cs *cache.Stats
	if e.cache != nil {
		st := e.cache.Stats()
		cs = &st
		acct.CacheRun = st.Run
	}
	model := e.model
	if model == "" {
		// Every answer came from earlier outputs: the model is theirs.
		model = strings.Join(s.resumedModels, ",")
	}
	var traces *traceCounts
	if len(s.traces.ByFormat) > 0 {
		t := s.traces
		t.ByFormat = copyCounts(t.ByFormat)
		traces = &t
	}
	return Summary{
		Reasoning: traces,
		Tool:      e.r.Tool, Model: model, Endpoints: s.endpoints, Started: s.start.UTC(), Account: acct, Cache: cs,
		Records: recordCounts{Read: e.r.Read.Load(), Written: e.r.Written.Load(), OK: ok, Failed: e.r.Failed.Load(), FailedByKind: copyCounts(e.r.FailuresByKind()),
			PassedThrough: s.passed.Load(), Resumed: s.resumed.Load(), PreflightFailed: s.preflightFails, ContextCut: s.cutRecords, ContextCutTok: s.cutTokens},
		Requests:           requestCounts{Sent: s.attempts.Load(), Retries: s.retries.Load(), FailedByKind: copyCounts(s.attemptFailBy), FailedByHTTP: byHTTP},
		LatencyMS:          distOf(s.latency),
		TTFTMS:             distOf(s.ttft),
		Throughput:         throughput{RequestsPerS: float64(ok) / max(wall, 1e-9), OutputTokensPerS: float64(s.tokens.Completion) / max(wall, 1e-9), TotalTokensPerS: float64(s.tokens.Completion+s.tokens.Prompt) / max(wall, 1e-9)},
		Finish:             copyCounts(s.finishReasons),
		Concurrency:        concurrency{Max: e.opt.Concurrency, Adaptive: e.opt.Adaptive, LowestLimit: s.lowestLimit},
		ServerTruncated:    int64(len(s.truncatedIDs)),
		ServerTruncatedIDs: slices.Clone(s.truncatedIDs),
		CutCheck:           cutChecks{Exact: s.checks[cuts.Exact], Calibrated: s.checks[cuts.Calibrated], Unchecked: s.checks[cuts.Unchecked], NoUsage: s.noUsage, Margin: roundMargin(s.maxMargin)},
		Runaway:            int64(len(s.runawayIDs)),
		RunawayIDs:         slices.Clone(s.runawayIDs),
	}
}

func copyCounts[K comparable](m map[K]int64) map[K]int64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[K]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeStats logs the summary and writes --stats. Neither contains the key:
// endpoints are labels without user info, messages were redacted.
func (e *engine) writeStats() error {
	sum := e.summary()
	attrs := []any{"model", sum.Model, "ok", sum.Records.OK, "failed", sum.Records.Failed, "requests", sum.Requests.Sent, "retries", sum.Requests.Retries,
		"req_per_s", fmt.Sprintf("%.1f", sum.Throughput.RequestsPerS), "out_tok_per_s", fmt.Sprintf("%.0f", sum.Throughput.OutputTokensPerS)}
	if sum.LatencyMS != nil {
		attrs = append(attrs, "latency_p50_ms", fmt.Sprintf("%.0f", sum.LatencyMS.P50), "latency_p99_ms", fmt.Sprintf("%.0f", sum.LatencyMS.P99))
	}
	if sum.TTFTMS != nil {
		attrs = append(attrs, "ttft_p50_ms", fmt.Sprintf("%.0f", sum.TTFTMS.P50))
	}
	if sum.Records.Resumed > 0 {
		attrs = append(attrs, "resumed", sum.Records.Resumed)
	}
	if n := sum.Finish["length"]; n > 0 {
		attrs = append(attrs, "finish_length", n)
	}
	if n := sum.ServerTruncated; n > 0 {
		attrs = append(attrs, "server_truncated", n)
	}
	if n := sum.Runaway; n > 0 {
		attrs = append(attrs, "runaway", n)
	}
	if t := sum.Reasoning; t != nil {
		n := int64(0)
		for _, v := range t.ByFormat {
			n += v
		}
		attrs = append(attrs, "reasoning_traces", n, "reasoning_tokens", t.Tokens, "reasoning_unfinished", t.Unfinished)
	}
	attrs = append(attrs, accountAttrs(&sum.Account, sum.Cache)...)
	e.r.Log.Info("inference", attrs...)
	if n := sum.ServerTruncated; n > 0 {
		e.r.Log.Warn("the server truncated prompts: those replies answer a shorter prompt than the benchmark's; aggregate-ifs counts them in every table (--exclude-truncated leaves them out)", "records", n)
	}
	e.cutSummary(&sum)
	if n := sum.Runaway; n > 0 {
		e.r.Log.Warn("replies stopped at the server's own limit (finish_reason length with no max_tokens in the request, or past the one it set): they are flagged response.runaway; give every request max_tokens (expand-templates does)", "records", n)
	}
	if t := sum.Reasoning; t != nil && t.Unfinished > 0 {
		e.r.Log.Warn("replies ended while the model was still reasoning: they have no answer and fail with reasoning_unfinished, scored as failed records; raise max_tokens for a reasoning model (expand-templates --reasoning-budget N, the pipeline scripts' --reasoning-budget N)", "records", t.Unfinished)
	}
	e.r.SetUsage(&sum.Account)
	return writeJSON(e.opt.StatsFile, sum)
}

// writeJSON writes --stats: a file that appears whole (stream.WriteFile),
// with every secret masked.
func writeJSON(name string, v any) error {
	if name == "" {
		return nil
	}
	b, err := record.Marshal(v)
	if err != nil {
		return err
	}
	b = []byte(redact.String(string(b)))
	if err := stream.WriteFile(name, append(b, '\n')); err != nil {
		return fmt.Errorf("--stats: %w", err)
	}
	return nil
}
