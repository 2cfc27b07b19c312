package infer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/batchapi"
	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/urfave/cli/v2"
)

// BatchOptions choose the OpenAI Batch way of running the requests instead
// of calling the endpoint once per record (docs/infer-batch.md, "Batch").
type BatchOptions struct {
	Export       bool          // write Batch request lines, call nothing
	Import       []string      // Batch result files to write the records from
	API          bool          // run the requests as batches on the endpoint's /v1/batches
	CancelOnExit bool          // --batch-api: cancel unfinished batches on SIGTERM/SIGINT
	Poll         time.Duration // --batch-api: longest wait between two polls
	MaxRequests  int           // requests per batch (OpenAI: 50,000)
	MaxBytes     int64         // bytes per batch input file (OpenAI: 200 MB)
}

// Active reports whether records go through a batch rather than calls.
func (b *BatchOptions) Active() bool { return b.Export || len(b.Import) > 0 || b.API }

// NeedsEndpoint reports whether the mode talks to an endpoint.
func (b *BatchOptions) NeedsEndpoint() bool { return !b.Export && len(b.Import) == 0 }

const catBatch = "OpenAI Batch:"

func batchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "batch-export", Category: catBatch, Usage: "call nothing: write one OpenAI Batch request line per record that needs a call (custom_id = id, method, url, body = request + model), for OpenAI's Batch API or vllm run-batch"},
		&cli.StringSliceFlag{Name: "batch-import", Category: catBatch, Usage: "call nothing: write the input records with the response or error of the Batch result `FILE`s (OpenAI output and error files, vllm run-batch output), matched by custom_id; ids without a result get an error"},
		&cli.BoolFlag{Name: "batch-api", Category: catBatch, Usage: "run the requests as batches on the endpoint's /v1/files and /v1/batches (split at --batch-max-requests or --batch-max-bytes), poll, and write the records; with -o FILE what was uploaded and created is kept in FILE.partial.batches, and the same command with --resume polls those batches again and keeps the answers already in -o FILE (nothing is paid twice)"},
		&cli.BoolFlag{Name: "cancel-on-exit", Category: catBatch, Usage: "--batch-api: cancel the unfinished batches on SIGTERM/SIGINT (default: leave them running for --resume)"},
		&cli.DurationFlag{Name: "batch-poll", Value: time.Minute, Category: catBatch, Usage: "--batch-api: longest wait between two polls (back-off from 1 s)"},
		&cli.IntFlag{Name: "batch-max-requests", Value: batchapi.MaxRequests, Category: catBatch, Usage: "--batch-api: requests per batch (OpenAI: 50,000)"},
		&cli.Int64Flag{Name: "batch-max-bytes", Value: batchapi.MaxBytes, Category: catBatch, Usage: "--batch-api: bytes per batch input file (OpenAI: 200 MB, about 400 prompts of 128k tokens); with every --batch-* mode a request whose line alone is larger fails without being sent"},
	}
}

func batchOptionsFromFlags(r *app.Run) BatchOptions {
	return BatchOptions{
		Export: r.Bool("batch-export"), Import: r.StringSlice("batch-import"), API: r.Bool("batch-api"),
		CancelOnExit: r.Bool("cancel-on-exit"), Poll: r.Duration("batch-poll"),
		MaxRequests: r.Int("batch-max-requests"), MaxBytes: r.Int64("batch-max-bytes"),
	}
}

func (o *Options) validateBatch() error {
	b := &o.Batch
	n := 0
	for _, on := range []bool{b.Export, len(b.Import) > 0, b.API} {
		if on {
			n++
		}
	}
	switch {
	case o.Dispatch != "" && o.Dispatch != DispatchInput && o.Dispatch != DispatchPrefix:
		return app.Usagef("--dispatch %q: want input or prefix", o.Dispatch)
	case n > 1:
		return app.Usagef("--batch-export, --batch-import and --batch-api are different ways to run: give one")
	case b.CancelOnExit && !b.API:
		return app.Usagef("--cancel-on-exit needs --batch-api")
	case b.Export && len(o.ResumeFrom) > 0:
		return app.Usagef("--resume-from does not apply to --batch-export, which writes requests, not answers")
	case b.API && (b.MaxRequests < 1 || b.Poll <= 0):
		return app.Usagef("--batch-max-requests %d, --batch-poll %v: want at least 1 and more than 0", b.MaxRequests, b.Poll)
	case n > 0 && b.MaxBytes < 1:
		return app.Usagef("--batch-max-bytes %d: want at least 1", b.MaxBytes)
	case b.Export && o.Model == "" && len(o.BaseURLs) == 0:
		return app.Usagef("--batch-export: a Batch request names its model: give --%smodel (or --%sbase-url to ask the endpoint)", o.Role, o.Role)
	}
	return nil
}

// processBatch is Process for the three batch modes.
func processBatch(r *app.Run, opt Options, prepare func(*record.Record) ([]byte, error), apply func(*record.Record, *Result) error) error {
	e := newEngine(r, opt, prepare, apply)
	e.model = opt.Model
	e.lim, e.eps = newLimiter(1, false), newBalancer(opt.BaseURLs, opt.PauseAfter, opt.PauseFor, r.Log)
	// Batches do not stream: the request's own "stream" is dropped below.
	e.opt.Stream = false
	if err := e.openCache(); err != nil {
		return err
	}
	defer e.closeCache()
	e.startTotal()
	if opt.Resume && !opt.Batch.Export {
		// The answers of an earlier output are kept, as online: --batch-api
		// sends no batch for them, --batch-import writes them as they were.
		err := e.resume()
		defer e.earlier.close()
		if err != nil {
			return err
		}
	}
	var err error
	switch {
	case opt.Batch.Export:
		if r.LakeRunFile() != "" {
			return app.Usagef("--batch-export writes one file of Batch request lines, not a partitioned folder: give -o FILE (or none)")
		}
		e.client = oai.New(1, opt.ConnectTimeout, opt.APIKey)
		e.client.MaxReply = opt.MaxReply
		defer e.client.Close()
		if opt.Model != "" {
			if err := e.modelKnown(); err != nil {
				return err
			}
		}
		err = e.export()
	case len(opt.Batch.Import) > 0:
		e.client = oai.New(1, opt.ConnectTimeout, opt.APIKey)
		e.client.MaxReply = opt.MaxReply
		defer e.client.Close()
		if err := e.modelKnown(); err != nil {
			return err
		}
		// Results past memory wait beside the output, as --batch-api's do.
		dir := ""
		if opt.Output != "" {
			dir = filepath.Dir(opt.Output)
		}
		res := batchapi.NewResults(dir)
		defer res.Close()
		if err := res.ReadFiles(opt.Batch.Import); err != nil {
			return app.Invalid(err)
		}
		err = e.importResults(e.withEarlier(e.r.Records), res, "batch:"+opt.Batch.Import[0], nil)
	default:
		err = e.batchAPI()
	}
	// The records held back for the cut check (cutcheck.go).
	if ferr := e.out.flush(); err == nil {
		err = ferr
	}
	if err == nil {
		err = e.finishResume()
	}
	e.st.finish(e)
	if serr := e.writeStats(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// modelKnown skips resolveModel, whose /v1/models call an export with
// --model or an import does not need; --tokenizer server still needs the
// endpoint's tokenize API, or every count would silently be the estimate.
func (e *engine) modelKnown() error {
	e.checked = true
	if e.opt.Tokenizer != TokenizerServer {
		return nil
	}
	if len(e.opt.BaseURLs) == 0 {
		return app.Usagef("--%stokenizer server counts with the endpoint's tokenize API: give --%sbase-url", e.opt.Role, e.opt.Role)
	}
	return e.detectTokenizer()
}

// withEarlier passes on the records that have no earlier answer (--resume)
// and writes the others as they were.
func (e *engine) withEarlier(each func(func(*record.Record) error) error) func(func(*record.Record) error) error {
	if e.earlier == nil {
		return each
	}
	return func(fn func(*record.Record) error) error {
		return each(func(rec *record.Record) error {
			it := &item{rec: rec}
			if err := e.takeEarlier(it); err != nil {
				return err
			}
			if !it.old {
				return fn(rec)
			}
			e.st.resumed.Add(1)
			return e.out.put(it.rec, it.sample)
		})
	}
}

// callFor is prepareCall for a Batch line: the body whole, without stream
// fields, within --batch-max-bytes, with its cache key. Nothing is counted
// in the stats here. A Batch matches results by custom_id, the record's
// id: one that is not valid UTF-8 would be sent and come back under
// another id (JSON has no such strings), so it is bad input.
func (e *engine) callFor(rec *record.Record) (c *call, re *record.Error, pre bool, err error) {
	if !utf8.ValidString(rec.ID()) {
		return nil, nil, false, app.Invalidf("the id %q is not valid UTF-8: a Batch's custom_id must be, or its result comes back under another id", rec.ID())
	}
	if c, re, pre, err = e.prepareCall(rec); c == nil || re != nil || err != nil {
		return c, re, pre, err
	}
	c.head, c.body = nil, c.joined() // a Batch line holds the body whole
	if c.stream {
		// A batch answers whole: a stream asked for by the request is dropped.
		var m map[string]json.RawMessage
		if err := record.Unmarshal(c.body, &m); err == nil {
			delete(m, "stream")
			delete(m, "stream_options")
			c.body, _ = record.Marshal(m)
		}
		c.stream = false
	}
	if n := batchapi.InputSize(rec.ID(), batchURL(c), c.body); int64(n) > e.opt.Batch.MaxBytes {
		return c, &record.Error{Kind: oai.KindBadRequest, Message: fmt.Sprintf("not sent: its Batch request line is %d bytes, more than --batch-max-bytes %d", n, e.opt.Batch.MaxBytes)}, true, nil
	}
	e.keyCall(c)
	return c, nil, false, nil
}

// prepareCall prepares and builds a record's call at once (the batch modes
// and --dry-run have no slots to build ahead of): c is nil when the record
// needs no call or failed before one (re says why; pre when the pre-flight
// check refused it, and then c holds what was counted).
func (e *engine) prepareCall(rec *record.Record) (c *call, re *record.Error, pre bool, err error) {
	body, err := e.safePrepare(rec)
	switch {
	case errors.As(err, &re):
		return nil, re, false, nil
	case err != nil:
		return nil, nil, false, err
	case body == nil:
		return nil, nil, false, nil
	}
	if err := e.resolveModel(); err != nil {
		return nil, nil, false, err
	}
	c = &call{req: body}
	if re = e.build(e.r.Ctx, c, false); re != nil {
		return c, re, true, nil // c has the counts, for an answer kept anyway
	}
	return c, nil, false, nil
}

func batchURL(c *call) string {
	if c.path == oai.PathChat {
		return batchapi.URLChat
	}
	return batchapi.URLCompletions
}

// export writes a Batch request line per record that needs a call. Records
// that need none, or failed before one, are not in it: --batch-import
// prepares every record again and writes them.
func (e *engine) export() error {
	w := e.r.TextWriter()
	var buf []byte
	lines, skipped, cached := 0, 0, 0
	err := e.r.Records(func(rec *record.Record) error {
		c, re, _, err := e.callFor(rec)
		if err != nil {
			return err
		}
		if c == nil || re != nil {
			skipped++
			return nil
		}
		if e.cache != nil {
			it := &item{rec: rec, call: c}
			if e.lookup(it); it.hit != nil {
				// --batch-import writes it from the cache.
				e.cache.Served()
				cached++
				return nil
			}
		}
		buf = batchapi.AppendInput(buf[:0], rec.ID(), batchURL(c), c.body)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		lines++
		e.r.Written.Add(1)
		return nil
	})
	attrs := []any{"requests", lines, "records_without_a_call", skipped}
	if e.cache != nil {
		attrs = append(attrs, "answered_by_the_cache", cached)
	}
	e.r.Log.Info("--batch-export: Batch request lines written", append(attrs,
		"hint", "records without a call, or that the cache answers, are written by --batch-import from the same input (with --cache)")...)
	return err
}

// importResults writes every input record with its batch result, in input
// order, as an online run would have written it.
// each is r.Records, or the records a --batch-api run kept aside; built has
// the calls that run built for its batches (nil: build them again).
func (e *engine) importResults(each func(func(*record.Record) error) error, res *batchapi.Results, label string, built map[string]*call) error {
	ep := &endpoint{label: label}
	missing, refused := 0, 0
	err := each(func(rec *record.Record) error {
		c := built[rec.ID()]
		if c == nil {
			var re *record.Error
			var pre bool
			var err error
			if c, re, pre, err = e.callFor(rec); err != nil {
				return err
			}
			if re != nil {
				if out, ok, err := res.Take(rec.ID()); err != nil {
					return err
				} else if ok && pre {
					// Refused by this run's pre-flight (a stricter
					// --max-model-len than the export's), but the batch
					// sent it and its answer is paid for: kept.
					refused++
					return e.out.put(rec, e.applyOutput(rec, c, out, ep))
				}
				if pre {
					e.st.preflight()
				}
				e.fail(rec, re)
				return e.out.put(rec, nil)
			}
			if c == nil {
				e.st.passed.Add(1)
				return e.out.put(rec, nil)
			}
		}
		out, ok, err := res.Take(rec.ID())
		if err != nil {
			return err
		}
		var s *cuts.Sample
		if ok {
			s = e.applyOutput(rec, c, out, ep)
		} else if hit, cs := e.fromCache(rec, c); hit {
			s = cs
		} else {
			missing++
			e.fail(rec, &record.Error{Kind: KindNoBatchResult, Message: "no batch result has this custom_id", Attempts: 0})
		}
		return e.out.put(rec, s)
	})
	if refused > 0 {
		e.r.Log.Warn("records this run's pre-flight refuses have batch results: their answers are kept (the batch sent them)", "records", refused)
	}
	if missing > 0 {
		e.r.Log.Warn("records without a batch result were written with an error", "records", missing, "kind", KindNoBatchResult)
	}
	if n := res.Len(); n > 0 {
		e.r.Log.Warn("batch results whose custom_id is not in the input were ignored", "results", n, "some", fmt.Sprint(res.IDs(3)))
	}
	return err
}

// fromCache answers a record without a batch result from the cache: an
// export left it out because the cache held its reply.
func (e *engine) fromCache(rec *record.Record, c *call) (bool, *cuts.Sample) {
	if e.cache == nil {
		return false, nil
	}
	it := &item{rec: rec, call: c}
	e.lookup(it)
	return it.hit != nil && e.serveHit(it), it.sample
}

// KindNoBatchResult is the error kind of a record whose request has no line
// in the batch results (the batch expired, was cancelled, or the file is
// another run's).
const KindNoBatchResult = "no_batch_result"

// applyOutput writes a batch result into the record; it returns the
// reply's counts for the cut check (nil when the record failed).
func (e *engine) applyOutput(rec *record.Record, c *call, out *batchapi.Output, ep *endpoint) *cuts.Sample {
	if msg := out.ErrorMessage(); msg != "" && (out.Response == nil || out.Response.StatusCode/100 == 2) {
		e.fail(rec, &record.Error{Kind: "batch_error", Message: msg, Attempts: 1})
		return nil
	}
	comp, oe := oai.ParseResult(out.Response.StatusCode, bytes.TrimSpace(out.Response.Body))
	if oe != nil {
		e.fail(rec, &record.Error{Kind: oe.Kind, Status: oe.Status, Message: oe.Message, Attempts: 1})
		return nil
	}
	// Without --model, the record names the model that answered.
	model := e.model
	if model == "" {
		var v struct {
			Model string `json:"model"`
		}
		record.Unmarshal(out.Response.Body, &v)
		e.model = v.Model
	}
	// A batch answers once: a reply apply would ask again for (an empty
	// judge reply) fails the record, as an online run's last try does.
	it := &item{rec: rec, call: c}
	if again := e.succeed(it, comp, ep, 1); again != nil {
		e.fail(rec, &record.Error{Kind: again.Kind, Message: again.Message, Attempts: 1})
		it.sample = nil
	}
	e.model = model
	return it.sample
}
