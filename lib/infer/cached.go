package infer

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// The cache (--cache, lib/cache) in the engine: a built call gets its key
// (the body as sent, with this run's model: after --truncate-context's cut,
// so another cut is another key), a builder looks it up ahead of the slot,
// and the worker that holds the slot answers the record from the entry
// instead of calling (serveHit). A reply is stored once the record kept it
// (store): never an error, an aborted or truncated reply, a reply the
// apply asked for again, or one whose prompt the server cut. Every mode of
// the engine shares it: online, --batch-import and --batch-api (whose
// results enter it), --batch-export (which leaves out what it answers).

// openCache opens --cache for this run.
func (e *engine) openCache() error {
	if !e.opt.Cache.Enabled() {
		return nil
	}
	c, err := cache.Open(e.opt.Cache, e.r.Tool, e.r.Log)
	if err != nil {
		return app.Usagef("%v", err)
	}
	e.cache = c
	return nil
}

// closeCache ends the cache's part of the run: the writer evicts.
func (e *engine) closeCache() {
	if e.cache == nil {
		return
	}
	if err := e.cache.Close(); err != nil {
		e.r.Log.Warn("cache eviction failed", "dir", e.opt.Cache.Dir, "err", err.Error())
	}
}

// keyCall gives a built call its cache key: the parts of the body sent,
// with the model, salt and endpoints. The model may still be unknown
// (--batch-import without --model: the results name it); store fills it.
func (e *engine) keyCall(c *call) {
	if e.cache == nil {
		return
	}
	k, err := cache.NewKey(c.path, c.joined())
	if err != nil {
		return // a body the server would refuse: nothing to cache
	}
	k.Model, k.Salt = e.model, e.cache.Salt()
	if e.cache.ByEndpoint() {
		k.Endpoint = e.endpointsKey()
	}
	c.key = &k
}

// endpointsKey is --cache-by-endpoint's part of the key: the base URLs
// (without credentials), sorted, since a request may go to any of them.
func (e *engine) endpointsKey() string {
	labels := make([]string, len(e.opt.BaseURLs))
	for i, u := range e.opt.BaseURLs {
		labels[i] = oai.Label(u)
	}
	slices.Sort(labels)
	return strings.Join(labels, " ")
}

// lookup finds the entry of a built call when the mode reads the cache, and
// counts a miss.
func (e *engine) lookup(it *item) {
	c := it.call
	if c.key == nil || c.key.Model == "" || !e.cache.Mode().Reads() {
		return
	}
	ent, found := e.cache.Get(*c.key)
	if ent != nil {
		it.hit = ent
		return
	}
	e.missed(it, found)
}

// missed counts a miss and, with --cache-explain, logs the first ten with
// the part of the key that differed from the nearest entry.
func (e *engine) missed(it *item, found string) {
	why := e.cache.Missed(*it.call.key, found)
	if why.Part == "" {
		return
	}
	if n := e.explained.Add(1); n <= 10 {
		e.r.Log.Info("cache miss", "id", it.rec.ID(), "differs", why.Part, "detail", why.Detail)
	} else if n == 11 {
		e.r.Log.Info("cache misses: more are counted in the summary (cache_misses_by) and --stats, not logged")
	}
}

// rejected is the part a miss is counted under when apply asked again for
// the cached reply (an empty judge reply): the request is sent.
const rejected = "rejected"

// serveHit answers the record from its entry as if the reply had just come
// (this run's prompt count, the original reply with when and by which run
// it was paid for). It reports false when the record must be sent after
// all: the entry does not read as a reply, or apply asked for another.
func (e *engine) serveHit(it *item) bool {
	c, ent := it.call, it.hit
	it.hit = nil
	var resp record.Response
	if err := record.Unmarshal(ent.Payload, &resp); err != nil {
		e.missed(it, cache.Unreadable)
		return false
	}
	e.countWhileSent(c)
	e.awaitCount(c)
	resp.PromptTokensSent, resp.Tokenizer, resp.ContextCutTokens = c.promptTokens, c.tokenizer, c.cut
	resp.ServerTruncated, resp.CutCheck, resp.CutMargin = false, "", 0 // the gate decides (cutcheck.go)
	resp.FromCache = record.FromCache{Cached: true, CachedTime: ent.Time.UTC().Format(time.RFC3339), CachedRun: ent.Run}
	res := &Result{Model: e.model, Response: resp}
	// A trace that never ended fails the record here too (an entry a run
	// with --reasoning keep stored): it was served all the same.
	if _, err := e.applyReply(it, res); err != nil {
		if oe := (*oai.Error)(nil); errors.As(err, &oe) && oe.Retryable {
			e.missed(it, rejected)
			return false
		}
		var re *record.Error
		if !errors.As(err, &re) {
			re = &record.Error{Kind: "apply", Message: err.Error()}
		}
		e.fail(it.rec, re)
		return true
	}
	e.cache.Served()
	e.st.servedFromCache(&resp)
	it.sample = c.sampleUsage(resp.Usage, resp.Usage.PromptTokens > 0)
	return true
}

// store keeps a reply the record kept, as it was received (before the
// reasoning rule, which a run that takes it applies its own way). In
// readwrite mode only a miss gets here, so an entry is written once;
// refresh writes every reply. A record that failed (a trace that never
// ended among them) is never stored.
func (e *engine) store(it *item, resp record.Response) {
	c := it.call
	if c == nil || c.key == nil || !e.cache.Mode().Writes() || resp.ServerTruncated || it.rec.Errored() {
		return
	}
	k := *c.key
	if k.Model == "" {
		k.Model = e.model // --batch-import without --model: the result's
	}
	if k.Model == "" {
		return
	}
	// This run's count and cut are given again to whoever takes the entry.
	resp.PromptTokensSent, resp.Tokenizer, resp.ContextCutTokens = 0, "", 0
	resp.CutCheck, resp.CutMargin = "", 0
	b, err := record.Marshal(resp)
	if err == nil {
		err = e.cache.Put(k, b)
	}
	if err != nil {
		if n := e.storeFails.Add(1); n <= 3 {
			e.r.Log.Warn("cannot write the cache: the reply is kept in the output only", "dir", e.opt.Cache.Dir, "err", err.Error())
		}
	}
}
