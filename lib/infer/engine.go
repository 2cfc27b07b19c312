package infer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/tokens"
)

// Result is what one successful call produced.
type Result struct {
	Model    string          // as sent to the endpoint
	Response record.Response // text, reasoning, finish_reason, usage, timings, attempts, endpoint, context_cut_tokens
}

// engine is one Process run.
type engine struct {
	r         *app.Run
	opt       Options
	model     string
	checked   bool // the endpoints were checked (resolveModel)
	client    *oai.Client
	eps       *balancer
	lim       *limiter
	rpm       *bucket
	tpm       *bucket
	encOnce   sync.Once
	enc       *tokens.Encoder
	encReady  atomic.Bool   // enc is loaded
	wave      chan struct{} // closed once the first wave is out (firstWaveOut)
	waveOnce  sync.Once
	srv       *oai.TokenizeAPI // --tokenizer server
	counts    sync.Map         // content hash → prompt tokens, for srv
	countWarn sync.Once
	tmplWarn  sync.Once
	tpmWarn   sync.Once
	nWarn     sync.Once
	mctWarn   sync.Once

	// The cut check (cutcheck.go): what the endpoint is (nil until the
	// start-up check), the checker, the gate every record passes on its way
	// out, and the one lookup of Ollama's loaded context. identified is
	// atomic: a deferred start-up check (checkBeforeSending) sets it while
	// builders read it (fit).
	identified atomic.Pointer[oai.Server]
	checker    *cuts.Checker
	out        *outGate
	ctxOnce    sync.Once
	st         *stats
	jr         *journal
	earlier    *earlier // --resume: the earlier records, by id
	prepare    func(*record.Record) ([]byte, error)
	apply      func(*record.Record, *Result) error

	// --cache (cached.go); cache is nil without it.
	cache      *cache.Cache
	lazyCheck  bool // the start-up check waits for the first miss (modelForBuild)
	checkMu    sync.Mutex
	checkErr   error
	explained  atomic.Int64 // cache misses explained (the first ten are logged)
	storeFails atomic.Int64

	// reqCtx carries the requests: unlike r.Ctx it outlives a signal by
	// --grace, so requests in flight can finish.
	reqCtx    context.Context
	cancelReq context.CancelFunc
	// stop ends dispatching on a fatal error (a failed write).
	stop     context.Context
	stopWith context.CancelCauseFunc
}

// item is one record on its way through the window.
type item struct {
	rec  *record.Record
	call *call
	// built is closed when call is built (or failed to be: buildErr), ahead
	// of its slot (buildAhead).
	built    chan struct{}
	buildErr *record.Error
	fp       uint64        // the record's fingerprint (resume.go), for the journal
	sample   *cuts.Sample  // its reply's counts, for the cut check (cutcheck.go)
	hit      *cache.Entry  // the cache's reply to call, found by the builder
	done     chan struct{} // closed when the record is ready (ordered mode)
	drop     bool          // interrupted before it had an answer: not written; --resume sends it
	old      bool          // an earlier output's record, written as it was
}

// Process runs all input records of r through the endpoints and writes them,
// in input order unless opt.Unordered. prepare returns a record's request
// body (a JSON object without "model": messages or prompt, max_tokens, ...;
// valid JSON, as a field of the record or Marshal's output is, since it is
// not checked again) or nil to write the record through without a call; a *record.Error from
// prepare fails the record, an app.Invalid error is bad input, any other error
// stops the run. apply sets the record's fields from the result. When a
// request finally fails, the record gets "error" (stage = r.Tool) via r.Fail
// and is written. Records are lost only to an interruption (a signal, a
// failed write), and --resume sends those again.
func Process(r *app.Run, opt Options, prepare func(*record.Record) ([]byte, error), apply func(*record.Record, *Result) error) error {
	if err := opt.validate(); err != nil {
		return err
	}
	if opt.Batch.Active() {
		return processBatch(r, opt, prepare, apply)
	}
	if opt.DryRun {
		return dryRun(r, opt, prepare, apply)
	}
	e := newEngine(r, opt, prepare, apply)
	if err := e.openCache(); err != nil {
		return err
	}
	defer e.closeCache()
	e.client = oai.New(opt.Concurrency, opt.ConnectTimeout, opt.APIKey)
	e.client.MaxReply = opt.MaxReply
	defer e.client.Close()
	e.eps = newBalancer(opt.BaseURLs, opt.PauseAfter, opt.PauseFor, r.Log)
	e.lim = newLimiter(opt.Concurrency, opt.Adaptive)
	e.rpm, e.tpm = newBucket(opt.RPM), newBucket(opt.TPM)
	if opt.Resume {
		err := e.resume()
		defer e.earlier.close()
		if err != nil {
			return err
		}
	}
	if opt.Output != "" {
		e.jr = openJournal(r, journalName(opt.Output))
		defer e.jr.close()
	}
	e.reqCtx, e.cancelReq = context.WithCancel(context.WithoutCancel(r.Ctx))
	defer e.cancelReq()
	e.stop, e.stopWith = context.WithCancelCause(r.Ctx)
	defer e.stopWith(nil)
	go e.graceOnSignal()
	e.startTotal()
	r.Status = e.status

	err := e.run()
	e.st.finish(e)
	if serr := e.writeStats(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// newEngine makes the engine every mode starts from.
func newEngine(r *app.Run, opt Options, prepare func(*record.Record) ([]byte, error), apply func(*record.Record, *Result) error) *engine {
	e := &engine{r: r, opt: opt, prepare: prepare, apply: apply, st: newStats(), wave: make(chan struct{})}
	e.checker = cuts.New(e.checkerServer())
	e.out = newOutGate(e)
	return e
}

// graceOnSignal lets requests in flight finish for --grace after a signal,
// then cancels them; their records are left for --resume.
func (e *engine) graceOnSignal() {
	select {
	case <-e.r.Ctx.Done():
	case <-e.reqCtx.Done():
		return
	}
	e.drain()
}

// drain gives the requests in flight --grace to finish (and be written),
// then cancels the rest.
func (e *engine) drain() {
	e.drainLogged(e.logDrain())
}

// logDrain says that the requests in flight are drained: before anything
// else the run logs, so it comes first in every order of events.
func (e *engine) logDrain() bool {
	if e.opt.Grace > 0 {
		e.r.Log.Info("draining requests in flight", "grace", e.opt.Grace.String(), "in_flight", e.st.inflight.Load())
	}
	return e.opt.Grace > 0
}

func (e *engine) drainLogged(grace bool) {
	if grace {
		t := time.NewTimer(e.opt.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			e.r.Log.Warn("grace period over: cancelling requests still in flight; --resume will send them again", "in_flight", e.st.inflight.Load())
		case <-e.reqCtx.Done():
			return
		}
	}
	e.cancelReq()
}

// resolveModel checks every endpoint with GET /v1/models before the first
// request, and takes the model from it when --model was not given. It runs
// when the first record needs a call, so a run (a judge on deterministic
// records) that calls nothing needs no endpoint. When no endpoint answers at
// all (connection refused, DNS, TLS, 401/403) the run ends at once naming
// each one and why: a mistyped URL must not wait out every record's retries.
// Once one has answered, an outage is held (balancer.hold), not burned.
func (e *engine) resolveModel() error {
	if e.checked {
		return nil
	}
	e.checked = true
	if len(e.opt.BaseURLs) == 0 {
		return e.noEndpoint()
	}
	if e.model == "" { // (a deferred check runs while builders read e.model)
		e.model = e.opt.Model
	}
	var errs []string
	up := 0
	var first string // the first endpoint that answered, and its models
	var firstModels []oai.Model
	for _, base := range e.opt.BaseURLs {
		ms, err := e.opt.Models.Ask(e.r.Ctx, e.client, base, max(e.opt.ConnectTimeout, 10*time.Second))
		var oe *oai.Error
		switch {
		case err == nil:
			up++
			if first == "" {
				first, firstModels = base, ms
			}
		case e.model != "" && errors.As(err, &oe) && oe.Status != 0 && oe.Kind != oai.KindAuth:
			up++ // it answered; /v1/models is optional when --model names the model
			if first == "" {
				first = base
			}
			continue
		default:
			errs = append(errs, fmt.Sprintf("%s: %v", oai.Label(base), err))
			continue
		}
		if e.model != "" {
			continue
		}
		if e.model, err = OnlyModel(base, ms, e.opt.Role); err != nil {
			return err
		}
		attrs := []any{"model", e.model, "endpoint", oai.Label(base)}
		if ms[0].MaxModelLen > 0 && e.opt.MaxModelLen == 0 {
			attrs = append(attrs, "max_model_len", ms[0].MaxModelLen, "hint", "--max-model-len checks prompts before sending")
		}
		e.r.Log.Info("model from /v1/models", attrs...)
	}
	if up == 0 || e.model == "" {
		return fmt.Errorf("no endpoint answered GET /v1/models: %s", strings.Join(errs, "; "))
	}
	for _, msg := range errs {
		e.r.Log.Warn("endpoint does not answer at start-up; requests go to the others while it fails", "error", msg)
	}
	e.eps.answered()
	e.identify(first, firstModels)
	return e.detectTokenizer()
}

// OnlyModel is the model a run that names none sends to: the one model
// base's /v1/models lists (ms); several, or none, is a usage error asking
// for --ROLEmodel.
func OnlyModel(base string, ms []oai.Model, role string) (string, error) {
	switch len(ms) {
	case 1:
		return ms[0].ID, nil
	case 0:
		return "", app.Usagef("%s/models lists no model; give --%smodel", oai.Label(base), role)
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return "", app.Usagef("%s serves several models (%s); choose one with --%smodel", oai.Label(base), strings.Join(ids, ", "), role)
}

// run is the pipeline: this goroutine reads and admits the records (admit),
// builders build their calls ahead (buildAhead), senders call the endpoints
// (work), in input order or by prefix (dispatch.go), and one recordWriter
// writes them (writer.go).
func (e *engine) run() error {
	var senders sync.WaitGroup
	put := func(it *item) error { return e.out.put(it.rec, it.sample) }
	p := &pipeline{w: newRecordWriter(e.opt.window(), e.opt.Concurrency, e.opt.Unordered, put, func(err error) {
		e.stopWith(err)
		e.cancelReq()
	})}
	p.start = func(it *item) {
		senders.Go(func() {
			e.work(it)
			p.w.complete(it)
		})
	}
	var built <-chan struct{}
	p.builds, built = e.buildAhead()
	dispatched := make(chan struct{})
	if e.opt.Dispatch == DispatchPrefix {
		p.disp = newDispatcher(e.opt.window(), e.opt.queued)
		go func() {
			defer close(dispatched)
			e.dispatch(p.disp, p.start, p.w.complete)
		}()
	}

	err := e.r.Records(func(rec *record.Record) error { return e.admit(p, rec) })
	e.firstWaveOut() // fewer records than -j, or the run stopped
	close(p.builds)
	e.stopReading(err)
	if p.disp != nil {
		p.disp.close()
		<-dispatched
		if p.disp.grouped > 0 {
			e.r.Log.Info("--dispatch prefix: records sent ahead of their input position to share a prompt prefix", "records", p.disp.grouped)
		}
	}
	senders.Wait()
	<-built
	if werr := p.w.close(); werr != nil {
		return werr
	}
	// The records held back for the cut check (cutcheck.go), judged with
	// all the run saw, also after a signal: they were answered.
	if werr := e.out.flush(); werr != nil {
		return werr
	}
	if err == nil {
		// a fatal error found after the last record was read: a deferred
		// start-up check, or a tokenizer that gave up (count.go)
		err = e.stopCause()
	}
	if err == nil && e.r.Ctx.Err() != nil {
		err = e.r.Ctx.Err()
	}
	if err != nil {
		return err
	}
	return e.finishResume()
}

// pipeline is what admit hands a record on to.
type pipeline struct {
	w      *recordWriter
	builds chan<- *item   // to the builders (buildAhead)
	disp   *dispatcher    // --dispatch prefix; nil: records are sent in input order
	start  func(it *item) // sends a record that holds a limiter slot
}

// admit takes one input record into the run: its earlier record (--resume)
// or its call is prepared, it enters the window in input order (waiting
// while the window is full), and its call goes to the builders and then to
// a sender. A record without a call is complete at once.
func (e *engine) admit(p *pipeline, rec *record.Record) error {
	it := &item{rec: rec}
	if err := e.takeEarlier(it); err != nil {
		return err
	}
	if !it.old {
		if err := e.prepareItem(it); err != nil {
			return err
		}
	}
	if p.w.admit(e.stop, it) != nil {
		return e.stopErr()
	}
	if it.call == nil {
		if it.old {
			e.st.resumed.Add(1)
		} else {
			e.st.passed.Add(1)
		}
		p.w.complete(it)
		return nil
	}
	it.built = make(chan struct{})
	p.builds <- it
	if p.disp != nil {
		if !p.disp.add(it) {
			it.drop = true
			p.w.complete(it)
			return e.stopErr()
		}
		return nil
	}
	// A slot for the first attempt: dispatch waits here, so at most -j
	// requests are in flight.
	if err := e.lim.acquire(e.stop); err != nil {
		it.drop = true
		p.w.complete(it)
		return e.stopErr()
	}
	p.start(it)
	return nil
}

// stopReading handles the end of the input. Bad input stops the reading,
// but the records before it that are in flight are paid for: they finish
// within --grace and are written before the exit 3 that names the line. A
// fatal error does not wait for requests in flight.
func (e *engine) stopReading(err error) {
	var bad *stream.LineError
	switch {
	case err == nil, errors.Is(err, context.Canceled):
	case errors.As(err, &bad):
		go e.drainLogged(e.logDrain())
	default:
		e.cancelReq()
	}
}

// buildAhead starts the goroutines that build the calls (decode, count,
// check; build) of records admitted to the window, in input order, before
// their slot frees: when a wave of answers comes back, the next requests go
// out at once instead of each being counted first (on 2 cores, 64 prompts of
// 100k tokens arriving together would otherwise be counted while their
// slots wait). Close the channel after the last record; done is closed when
// every call is built. The builders are the cores, or -j when the server
// counts (the work is a /tokenize round trip).
func (e *engine) buildAhead() (chan<- *item, <-chan struct{}) {
	n := runtime.GOMAXPROCS(0)
	if e.opt.Tokenizer == TokenizerServer {
		n = max(n, e.opt.Concurrency)
	}
	// As large as the window: a record admitted to it never waits here.
	builds := make(chan *item, e.opt.window())
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for it := range builds {
				it.buildErr = e.safeBuild(it)
				close(it.built)
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	return builds, done
}

// safeBuild turns a panic in build into the record's error, as work does.
func (e *engine) safeBuild(it *item) (re *record.Error) {
	defer func() {
		if p := recover(); p != nil {
			e.r.Log.Error("panic while building a request", "id", it.rec.ID(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			re = &record.Error{Kind: "internal", Message: fmt.Sprintf("panic: %v", p)}
		}
	}()
	if e.jr != nil {
		it.fp = e.fingerprint(it.rec)
	}
	if re := e.build(e.reqCtx, it.call, true); re != nil {
		return re
	}
	e.keyCall(it.call)
	e.lookup(it)
	return nil
}

// prepareItem builds a new record's call; it.call stays nil when prepare
// wants no call or the record failed before sending.
func (e *engine) prepareItem(it *item) error {
	body, err := e.safePrepare(it.rec)
	var re *record.Error
	switch {
	case errors.As(err, &re):
		e.fail(it.rec, re)
		return nil
	case err != nil:
		return err
	case body == nil:
		return nil
	}
	if err := e.modelForBuild(); err != nil {
		return err
	}
	it.call = &call{req: body}
	return nil
}

// modelForBuild runs the start-up check (resolveModel) before the first call
// is built, except when the cache may answer every record and --model names
// the model: then the check waits for the first request that is sent
// (checkBeforeSending), so a run the cache answers whole needs no endpoint
// (a rescoring after the judge's server is gone).
func (e *engine) modelForBuild() error {
	if e.lazyCheck || e.checked {
		return nil
	}
	if e.cache != nil && e.cache.Mode().Reads() && e.opt.Model != "" && e.opt.Tokenizer != TokenizerServer {
		e.lazyCheck, e.model = true, e.opt.Model
		go e.encoder()
		return nil
	}
	return e.resolveModel()
}

// checkBeforeSending is the check modelForBuild deferred, run once, by the
// first worker that has a request to send; an error stops the run.
func (e *engine) checkBeforeSending() error {
	if !e.lazyCheck {
		return nil
	}
	e.checkMu.Lock()
	defer e.checkMu.Unlock()
	if !e.checked {
		e.checkErr = e.resolveModel()
	}
	return e.checkErr
}

// safePrepare turns a panic in prepare into the record's error: one odd
// record must not end a long run.
func (e *engine) safePrepare(rec *record.Record) (body []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			e.r.Log.Error("panic while preparing a record", "id", rec.ID(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			body, err = nil, &record.Error{Kind: "internal", Message: fmt.Sprintf("panic: %v", p)}
		}
	}()
	return e.prepare(rec)
}

func (e *engine) noEndpoint() error {
	env := "OPENAI_BASE_URL"
	if e.opt.Role != "" {
		env = envName(e.opt.Role, "BASE_URL")
	}
	return app.Usagef("no endpoint: give --%sbase-url or set %s", e.opt.Role, env)
}

// stopCause is why the run was stopped, when that was neither a signal
// nor its end (nil then).
func (e *engine) stopCause() error {
	if c := context.Cause(e.stop); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	return nil
}

func (e *engine) stopErr() error {
	if c := e.stopCause(); c != nil {
		return c
	}
	return context.Canceled
}

func (e *engine) fail(rec *record.Record, re *record.Error) {
	// The model under test is known even when every attempt failed, and the
	// aggregate counts the failure against it. A judge's model is not the
	// record's model, so the judge role leaves the field alone.
	if e.opt.Role == "" && e.model != "" && !rec.Has("model") {
		rec.Set("model", e.model)
	}
	e.r.Fail(rec, re)
}

// work runs one record's attempts. It holds a limiter slot on entry and
// gives it back while it waits to retry. The slot is released only after the
// record reached the journal, so at any moment at most -j requests have been
// sent whose answer a kill -9 would lose.
func (e *engine) work(it *item) {
	holding := true
	defer func() {
		if holding {
			e.lim.release()
		}
		if p := recover(); p != nil {
			e.r.Log.Error("panic while processing a record", "id", it.rec.ID(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			e.fail(it.rec, &record.Error{Kind: "internal", Message: fmt.Sprintf("panic: %v", p)})
		}
	}()
	c := it.call
	<-it.built
	if re := it.buildErr; re != nil {
		e.failBuild(it, re)
		return
	}
	defer func() { c.head, c.body, c.req = nil, nil, nil }() // the window keeps the item, not its bodies
	if it.hit != nil && e.serveHit(it) {
		e.jr.add(it.rec, it.fp)
		return
	}
	if err := e.checkBeforeSending(); err != nil {
		e.stopWith(err)
		it.drop = true
		return
	}
	e.send(it, &holding)
}

// failBuild records a request that could not be built (the pre-flight
// refused it, or building failed), unless the run is stopping.
func (e *engine) failBuild(it *item, re *record.Error) {
	if e.reqCtx.Err() != nil {
		it.drop = true
		return
	}
	if re.Kind != "internal" {
		e.st.preflight()
	}
	e.fail(it.rec, re)
	e.jr.add(it.rec, it.fp)
}

// send makes the record's attempts until one succeeds, a failure is final
// or the retries are spent, and journals the outcome; the record is dropped
// (sent again by --resume) when the run stops first. *holding says whether
// it holds a limiter slot: it gives it back while it waits to retry.
func (e *engine) send(it *item, holding *bool) {
	c := it.call
	var last *oai.Error
	var avoid *endpoint
	attempts := 0
	tries := 0 // attempts that count against --max-retries: not those an outage failed
	for {
		if !*holding {
			if e.lim.acquire(e.stop) != nil {
				it.drop = true
				return
			}
			*holding = true
		}
		if e.gate(it) != nil {
			it.drop = true
			return
		}
		attempts++
		tries++
		ep := e.eps.pick(avoid, time.Now())
		e.countWhileSent(c)
		e.st.sent()
		if e.st.inflight.Load() >= int64(e.opt.Concurrency) {
			e.firstWaveOut()
		}
		comp, err := e.client.Complete(e.reqCtx, oai.Call{Base: ep.base, Path: c.path, Head: c.head, Body: c.body, Stream: c.stream,
			FirstByte: e.opt.FirstByte, Idle: e.opt.IdleTimeout, Total: e.opt.Timeout})
		e.st.returned()
		now := time.Now()
		if err == nil {
			e.eps.done(ep, true, now)
			e.lim.succeeded(now)
			again := e.succeed(it, comp, ep, attempts)
			if again == nil || tries > e.opt.MaxRetries {
				if again != nil {
					e.fail(it.rec, &record.Error{Kind: again.Kind, Message: again.Message, Attempts: attempts})
				}
				e.jr.add(it.rec, it.fp)
				return
			}
			// The server answered, but the reply cannot be used (an empty
			// judge reply): ask again like a failed attempt, from here on.
			err = again
		}
		if !errors.As(err, &last) {
			// The requests' context ended: grace is over or the run failed.
			e.eps.done(ep, true, now)
			it.drop = true
			return
		}
		if e.attemptFailed(ep, last, now) {
			tries-- // held, not burned: the record waits for the endpoint
		}
		if !last.Retryable || tries > e.opt.MaxRetries {
			break
		}
		if e.stop.Err() != nil {
			// Stopping: no more retries; --resume sends it again.
			it.drop = true
			return
		}
		e.st.retries.Add(1)
		avoid = ep
		e.lim.release()
		*holding = false
		if e.backOff(tries, last) != nil {
			it.drop = true
			return
		}
	}
	e.fail(it.rec, &record.Error{Kind: last.Kind, Status: last.Status, Message: last.Message, Attempts: attempts})
	e.jr.add(it.rec, it.fp)
}

// backOff waits before retry number tries: the server's Retry-After, else
// a jittered back-off (backoff). An error means the run is stopping.
func (e *engine) backOff(tries int, last *oai.Error) error {
	wait := sleep
	if e.opt.retryWait != nil {
		wait = e.opt.retryWait
	}
	return wait(e.stop, backoff(max(tries, 1), last.RetryAfter, &e.opt))
}

// gate waits until an attempt may go: --rpm, --tpm, and an outage of every
// endpoint (held for --outage-wait). An error means the run is stopping.
func (e *engine) gate(it *item) error {
	c := it.call
	// c.promptTokens is read only under --tpm: without it the count may
	// still be running (countWhileSent) when a failed attempt retries.
	if e.tpm != nil {
		if cost := float64(c.promptTokens + c.maxTokens); cost > e.opt.TPM {
			e.tpmWarn.Do(func() {
				e.r.Log.Warn("a request needs more tokens than --"+e.opt.Role+"tpm allows in a minute: such requests go out one every few minutes, as the budget refills", "id", it.rec.ID(), "tokens", cost, "tpm", e.opt.TPM)
			})
		}
	}
	if err := e.rpm.take(e.stop, 1); err != nil {
		return err
	}
	if e.tpm != nil {
		if err := e.tpm.take(e.stop, float64(c.promptTokens+c.maxTokens)); err != nil {
			return err
		}
	}
	return e.eps.hold(e.stop, e.opt.OutageWait)
}

// attemptFailed tells the endpoint balancer, the limiter and the stats
// about a failed attempt, and reports whether it failed for an outage of
// every endpoint: such an attempt does not count against --max-retries.
func (e *engine) attemptFailed(ep *endpoint, last *oai.Error, now time.Time) (held bool) {
	sick := last.Kind == oai.KindNetwork || last.Kind == oai.KindTimeout || last.Kind == oai.KindServer || last.Kind == oai.KindTruncatedStream
	if d := e.eps.done(ep, !sick, now); d > 0 {
		e.r.Log.Warn("endpoint keeps failing: paused, then probed again", "endpoint", ep.label, "pause", d.String(), "last_error", last.Error())
	}
	e.st.attemptFailed(last)
	if last.Kind == oai.KindRateLimited {
		e.lim.throttled(now)
	}
	return sick && e.eps.inOutage()
}

// succeed applies a completion. It returns the error when apply rejected
// the reply as one to ask again (a retryable *oai.Error), without failing
// the record: the caller retries or gives up.
func (e *engine) succeed(it *item, comp *oai.Completion, ep *endpoint, attempts int) *oai.Error {
	c := it.call
	e.awaitCount(c)
	res := &Result{Model: e.model, Response: record.Response{
		Text:             comp.Text,
		Reasoning:        comp.Reasoning,
		FinishReason:     comp.FinishReason,
		Usage:            comp.Usage,
		LatencyMS:        ms(comp.Latency),
		TTFTMS:           ms(comp.TTFT),
		Attempts:         attempts,
		Endpoint:         ep.label,
		ContextCutTokens: c.cut,
		Fingerprint:      comp.Fingerprint,
		PromptTokensSent: c.promptTokens,
		Tokenizer:        c.tokenizer,
	}}
	sample := c.sample(comp)
	if comp.HasUsage {
		e.loadedContext(ep)
		e.checkTemplated(it.rec, c, comp, ep)
		// This moment's verdict, for the journal and the cache; the gate
		// decides the record's own when it is written (cutcheck.go).
		res.Response.ServerTruncated = e.checker.Judge(*sample).Cut
	}
	res.Response.Runaway = runaway(c, comp)
	e.ignored(c, comp, it.rec.ID())
	e.st.success(comp, c)
	received := res.Response // the cache keeps the reply as received
	unfinished, err := e.applyReply(it, res)
	if err != nil {
		if oe := (*oai.Error)(nil); errors.As(err, &oe) && oe.Retryable {
			return oe
		}
		var re *record.Error
		if !errors.As(err, &re) {
			re = &record.Error{Kind: "apply", Message: err.Error(), Attempts: attempts}
		}
		e.fail(it.rec, re)
		return nil
	}
	if unfinished {
		return nil // failed: not counted ok, never stored
	}
	e.st.ok.Add(1)
	it.sample = sample
	if res.Response.Runaway {
		if n := e.st.runaway(it.rec.ID()); n <= 3 {
			e.r.Log.Warn("the reply stopped at the server's own limit, not the request's (finish_reason length): flagged response.runaway", "id", it.rec.ID(), "max_tokens", c.maxTokens, "completion_tokens", comp.Usage.CompletionTokens)
		}
	}
	if e.cache != nil {
		e.store(it, received)
	}
	return nil
}

// applyReply applies the reasoning rule (lib/reasoning) to a reply, then
// hands it to apply. A reply whose trace never ended has no answer: the
// record fails with reasoning_unfinished, after apply for the model under
// test (its record keeps the trace and what it cost) and without it for a
// judge's (there is no verdict to read). The failure is set here, before
// the caller could store the reply in the cache, which keeps only records
// without an error.
func (e *engine) applyReply(it *item, res *Result) (unfinished bool, err error) {
	reasoning.Apply(e.opt.Reasoning, &res.Response, traceCounter{e})
	e.st.reasoned(&res.Response)
	if !res.Response.ReasoningUnfinished {
		return false, e.apply(it.rec, res)
	}
	if e.opt.Role == "" {
		if err := e.apply(it.rec, res); err != nil {
			return false, err
		}
	}
	maxTokens := 0
	if it.call != nil {
		maxTokens = it.call.maxTokens
	}
	re := reasoning.Unfinished(&res.Response, maxTokens)
	re.Attempts = res.Response.Attempts
	e.fail(it.rec, re)
	return true, nil
}

// traceCounter counts a trace the server did not count with the run's
// tokenizer (o200k_base under --tokenizer server, whose API counts prompts),
// loaded only when a trace needs it.
type traceCounter struct{ e *engine }

func (t traceCounter) CountContext(ctx context.Context, s string) (int, error) {
	return t.e.encoder().CountContext(ctx, s)
}

func (t traceCounter) Label() string { return t.e.encoder().Label() }

// checkTemplated warns, once, when the server counted far more tokens than
// a raw /v1/completions prompt has: it wrapped the prompt in a chat
// template (Ollama does).
func (e *engine) checkTemplated(rec *record.Record, c *call, comp *oai.Completion, ep *endpoint) {
	got := comp.Usage.PromptTokens
	if c.path == oai.PathCompletions && templated(c.promptTokens, got, c.exact) {
		e.tmplWarn.Do(func() {
			e.r.Log.Warn("the server counted far more prompt tokens than a raw /v1/completions prompt has: it applied a chat template (Ollama does), so the model answered a chat turn instead of continuing the text (LongGenBench's official setup continues raw text). Use a server that serves raw completions (vLLM, SGLang, llama.cpp, TGI), or expand-templates --chat to send the chat form on purpose",
				"id", rec.ID(), "endpoint", ep.label, "prompt_tokens", got, "prompt_tokens_sent", c.promptTokens, "tokenizer", c.tokenizer)
		})
	}
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
