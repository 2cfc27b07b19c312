package infer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/batchapi"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// batchChunk is one batch of this run: a new one, whose input file is
// written in pass 1 and then uploaded, or one an earlier run created
// (saved) that answers some of this run's records.
type batchChunk struct {
	url  string
	path string
	f    *os.File
	w    *bufio.Writer
	n    int
	size int64
	h    hash.Hash
	sum  string // the url and the hex sha256 of the file
	// fps are the records this run takes from the batch: id → the
	// fingerprint (hex) of the request it sent.
	fps   map[string]string
	saved *batchState // created (or uploaded) by an earlier run
	batch *batchapi.Batch
}

// batchPlan is what pass 1 leaves: the records kept aside in a spill file,
// the batches, the calls built (by id) and the ids written from an earlier
// output instead of a batch.
type batchPlan struct {
	spill  string
	chunks []*batchChunk
	built  map[string]*call
	kept   map[string]bool
}

// batchAPI runs the records through the endpoint's Batch API: the records
// are kept aside in a spill file while their requests are written to batch
// files, which are uploaded and run as batches; when every batch has ended
// the results are downloaded and the kept records are written with them, in
// input order, as --batch-import would.
//
// Nothing is paid twice. With -o FILE every step that costs is noted in
// FILE.partial.batches (batchstate.go) before the next one, and --resume
// takes each record from the first of: an earlier output (FILE,
// FILE.partial, as an online --resume does, so a complete output costs
// nothing), a batch an earlier run created for the same request, a new
// batch. A kill between creating a batch and noting it is covered by
// looking the batch up by its input file.
func (e *engine) batchAPI() error {
	r, opt := e.r, e.opt
	if len(opt.BaseURLs) > 1 {
		r.Log.Warn("--batch-api runs every batch on the first --base-url", "endpoint", oai.Label(opt.BaseURLs[0]))
	}
	e.client = oai.New(1, opt.ConnectTimeout, opt.APIKey)
	e.client.MaxReply = opt.MaxReply
	defer e.client.Close()

	state := ""
	if opt.Output != "" {
		state = BatchStateName(opt.Output)
	}
	saved, err := readBatchState(state)
	if err != nil {
		return err
	}
	if len(saved) > 0 && !opt.Resume {
		return app.Usagef("%s holds the batches of an earlier run that did not finish: --resume polls them (nothing is paid twice); remove the file to start over", state)
	}
	dir := os.TempDir()
	if opt.Output != "" {
		dir = filepath.Dir(opt.Output)
	}
	work, err := os.MkdirTemp(dir, ".ifkit-batch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	plan, err := e.writeBatchFiles(work, saved)
	if err != nil {
		return err
	}
	if len(plan.chunks) > 0 {
		cl := &batchapi.Client{HTTP: e.client.HTTP, Base: opt.BaseURLs[0], Key: opt.APIKey}
		sf, err := openBatchState(r, state)
		if err != nil {
			return err
		}
		defer sf.close()
		if err := e.submit(cl, plan.chunks, sf); err != nil {
			return err
		}
		if err := e.pollBatches(cl, plan.chunks); err != nil {
			return err
		}
		res, err := e.downloadResults(cl, plan.chunks, work)
		if err != nil {
			return err
		}
		defer res.Close()
		if err := e.writeKept(plan, res); err != nil {
			return err
		}
	} else {
		r.Log.Info("--batch-api: no record needs a call")
		if err := e.writeKept(plan, batchapi.NewResults(work)); err != nil {
			return err
		}
	}
	if state != "" {
		r.AfterComplete(func() { os.Remove(state) })
	}
	return nil
}

// writeBatchFiles is the first pass: every record is kept aside in a spill
// file while the requests are written to new batch files in work, split by
// endpoint, --batch-max-requests and --batch-max-bytes, or assigned to a
// batch an earlier run created for the same request (saved).
func (e *engine) writeBatchFiles(work string, saved []*batchState) (*batchPlan, error) {
	f, err := os.Create(filepath.Join(work, "records.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sw := bufio.NewWriterSize(f, 1<<20)
	bf := newBatchFiles(work, saved, e.opt.Batch.MaxRequests, e.opt.Batch.MaxBytes)
	bf.plan.spill = f.Name()
	var buf []byte
	err = e.r.Records(func(rec *record.Record) error {
		it := &item{rec: rec}
		if err := e.takeEarlier(it); err != nil {
			return err
		}
		buf = append(it.rec.AppendJSON(buf[:0]), '\n')
		if _, err := sw.Write(buf); err != nil {
			return err
		}
		if it.old {
			bf.plan.kept[rec.ID()] = true
			return nil
		}
		c, re, _, err := e.callFor(rec)
		if err != nil || c == nil || re != nil {
			return err
		}
		// importResults applies the result to this call: not built twice.
		bf.plan.built[rec.ID()] = &call{path: c.path, maxTokens: c.maxTokens, cut: c.cut, promptTokens: c.promptTokens, tokenizer: c.tokenizer, exact: c.exact, key: c.key,
			n: c.n, completionOnly: c.completionOnly, droppable: c.droppable}
		if e.cached(rec, c) {
			return nil // importResults answers it from the cache
		}
		fp := strconv.FormatUint(e.fingerprint(rec), 16)
		if bf.inEarlier(rec.ID(), fp) {
			return nil
		}
		return bf.add(rec.ID(), batchURL(c), c.body, fp)
	})
	if cerr := bf.close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = sw.Flush()
	}
	if err != nil {
		return nil, err
	}
	bf.matchOlderStates(saved)
	return bf.plan, nil
}

// batchFiles are the batches writeBatchFiles assigns requests to: those
// an earlier run created, and new batch files in work, one open per url (a
// batch has one endpoint), each closed at maxRequests or maxBytes.
type batchFiles struct {
	work        string
	maxRequests int
	maxBytes    int64
	plan        *batchPlan
	covers      map[string][]*batchState // id → the earlier batches that sent it
	earlier     map[*batchState]*batchChunk
	open        map[string]*batchChunk // by url
	buf         []byte
}

func newBatchFiles(work string, saved []*batchState, maxRequests int, maxBytes int64) *batchFiles {
	bf := &batchFiles{work: work, maxRequests: maxRequests, maxBytes: maxBytes,
		plan:   &batchPlan{built: map[string]*call{}, kept: map[string]bool{}},
		covers: map[string][]*batchState{}, earlier: map[*batchState]*batchChunk{}, open: map[string]*batchChunk{}}
	for _, st := range saved {
		for id := range st.FPs {
			bf.covers[id] = append(bf.covers[id], st)
		}
	}
	return bf
}

// inEarlier assigns a request to the batch an earlier run created for the
// same request (fingerprint fp), if there is one.
func (bf *batchFiles) inEarlier(id, fp string) bool {
	for _, st := range bf.covers[id] {
		if st.FPs[id] == fp {
			ch := bf.earlier[st]
			if ch == nil {
				ch = &batchChunk{url: st.URL, saved: st, fps: map[string]string{}}
				bf.earlier[st] = ch
				bf.plan.chunks = append(bf.plan.chunks, ch)
			}
			ch.fps[id] = fp
			ch.n++
			return true
		}
	}
	return false
}

// add writes a request's line to the open batch file of its url, starting
// a new one when it is full.
func (bf *batchFiles) add(id, url string, body []byte, fp string) error {
	bf.buf = batchapi.AppendInput(bf.buf[:0], id, url, body)
	ch := bf.open[url]
	if ch != nil && (ch.n >= bf.maxRequests || ch.size+int64(len(bf.buf)) > bf.maxBytes) {
		if err := ch.close(); err != nil {
			return err
		}
		ch = nil
	}
	if ch == nil {
		ch = &batchChunk{url: url, path: filepath.Join(bf.work, fmt.Sprintf("batch-%03d.jsonl", len(bf.plan.chunks))), h: sha256.New(), fps: map[string]string{}}
		var err error
		if ch.f, err = os.Create(ch.path); err != nil {
			return err
		}
		ch.w = bufio.NewWriterSize(io.MultiWriter(ch.f, ch.h), 1<<20)
		bf.plan.chunks = append(bf.plan.chunks, ch)
		bf.open[url] = ch
	}
	ch.n++
	ch.size += int64(len(bf.buf))
	ch.fps[id] = fp
	_, err := ch.w.Write(bf.buf)
	return err
}

// close closes the open batch files.
func (bf *batchFiles) close() error {
	var err error
	for _, ch := range bf.open {
		if cerr := ch.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// matchOlderStates takes a new batch file for the batch of a state line of
// an older ifkit, which names no requests, when their bytes are the same.
func (bf *batchFiles) matchOlderStates(saved []*batchState) {
	for _, ch := range bf.plan.chunks {
		for _, st := range saved {
			if ch.saved == nil && st.FPs == nil && st.Hash == ch.sum {
				ch.saved = st
			}
		}
	}
}

// cached reports whether the cache holds the reply to a call, which then
// goes in no batch; a miss is counted here (the hit when it is served).
func (e *engine) cached(rec *record.Record, c *call) bool {
	if e.cache == nil || c.key == nil || c.key.Model == "" || !e.cache.Mode().Reads() {
		return false
	}
	ent, found := e.cache.Get(*c.key)
	if ent == nil {
		e.missed(&item{rec: rec, call: c}, found)
	}
	return ent != nil
}

// submit uploads and creates each new batch, noting each step in the state
// file before the next; a batch an earlier run created is polled again, and
// one whose file it uploaded is looked up (a kill may have come between
// creating the batch and noting it) or else created.
func (e *engine) submit(cl *batchapi.Client, chunks []*batchChunk, sf *stateFile) error {
	r := e.r
	for i, ch := range chunks {
		if err := r.Ctx.Err(); err != nil {
			return err
		}
		st := ch.saved
		switch {
		case st != nil && st.BatchID != "":
			ch.batch = &batchapi.Batch{ID: st.BatchID, RequestCounts: batchapi.RequestCounts{Total: st.Requests}} // status unknown until polled
			r.Log.Info("--resume: polling a batch the earlier run created", "batch", st.BatchID, "requests", st.Requests, "taken", ch.n)
			continue
		case st != nil:
			b, err := cl.FindByFile(r.Ctx, st.FileID, 20)
			if err != nil {
				return err
			}
			if b != nil {
				ch.batch = b
				r.Log.Info("--resume: found the batch the earlier run created over its uploaded file", "batch", b.ID, "file", st.FileID)
				if err := sf.add(batchState{FileID: st.FileID, BatchID: b.ID}); err != nil {
					return err
				}
				continue
			}
			if err := e.create(cl, ch, st.FileID, i, len(chunks), sf); err != nil {
				return err
			}
			continue
		}
		f, err := cl.Upload(r.Ctx, ch.path)
		if err != nil {
			return err
		}
		if err := sf.add(batchState{Hash: ch.sum, URL: ch.url, Requests: ch.n, FileID: f.ID, FPs: ch.fps}); err != nil {
			return err
		}
		if err := e.create(cl, ch, f.ID, i, len(chunks), sf); err != nil {
			return err
		}
	}
	return nil
}

// create starts the batch of an uploaded file and notes it.
func (e *engine) create(cl *batchapi.Client, ch *batchChunk, fileID string, i, n int, sf *stateFile) error {
	b, err := cl.Create(e.r.Ctx, fileID, ch.url, map[string]string{"ifkit": fmt.Sprintf("%s %d/%d", e.r.Tool, i+1, n)})
	if err != nil {
		return err
	}
	ch.batch = b
	e.r.Log.Info("batch created", "batch", b.ID, "file", fileID, "requests", ch.n, "bytes", ch.size, "url", ch.url)
	return sf.add(batchState{FileID: fileID, BatchID: b.ID})
}

// downloadResults reads the output and error files of the ended batches as
// they download, keeping the results of the requests this run takes from
// each; they wait in work when they outgrow memory (batchapi.Results).
func (e *engine) downloadResults(cl *batchapi.Client, chunks []*batchChunk, work string) (*batchapi.Results, error) {
	res := batchapi.NewResults(work)
	for _, ch := range chunks {
		b := ch.batch
		if b.Status != batchapi.StatusCompleted {
			e.r.Log.Warn("batch did not complete: its requests without a result get an error", "batch", b.ID, "status", b.Status, "errors", batchErrors(b))
		}
		takes := func(id string) bool { _, ok := ch.fps[id]; return ok }
		for _, id := range []*string{b.OutputFileID, b.ErrorFileID} {
			if id == nil || *id == "" {
				continue
			}
			if err := cl.ReadResults(e.r.Ctx, *id, b.ID+"/"+*id, res, takes); err != nil {
				res.Close()
				return nil, fmt.Errorf("batch %s: %w", b.ID, err)
			}
		}
	}
	return res, nil
}

func (ch *batchChunk) close() error {
	if ch.f == nil {
		return nil
	}
	err := ch.w.Flush()
	if cerr := ch.f.Close(); err == nil {
		err = cerr
	}
	ch.f = nil
	ch.sum = ch.url + ":" + hex.EncodeToString(ch.h.Sum(nil))
	return err
}

func batchErrors(b *batchapi.Batch) string {
	if b.Errors == nil {
		return ""
	}
	var msgs []string
	for _, d := range b.Errors.Data {
		msgs = append(msgs, d.Code+": "+d.Message)
	}
	return strings.Join(msgs, "; ")
}

// pollBatches polls until every batch has ended, backing off from 1 s to
// --batch-poll. A signal stops the polling: with --cancel-on-exit the
// unfinished batches are cancelled, else they keep running for --resume.
func (e *engine) pollBatches(cl *batchapi.Client, chunks []*batchChunk) error {
	r := e.r
	var mu sync.Mutex
	r.Status = func() string {
		mu.Lock()
		defer mu.Unlock()
		parts := make([]string, len(chunks))
		for i, ch := range chunks {
			c := ch.batch.RequestCounts
			parts[i] = fmt.Sprintf("%s %s %d/%d (%d failed)", ch.batch.ID, ch.batch.Status, c.Completed, c.Total, c.Failed)
		}
		return strings.Join(parts, ", ")
	}
	wait := min(time.Second, e.opt.Batch.Poll)
	for {
		pending := 0
		for _, ch := range chunks {
			if batchapi.Terminal(ch.batch.Status) {
				continue
			}
			b, err := cl.Get(r.Ctx, ch.batch.ID)
			if err != nil {
				var ae *batchapi.APIError
				if r.Ctx.Err() != nil {
					break
				}
				if errors.As(err, &ae) && !ae.Retryable() {
					return err
				}
				r.Log.Warn("polling a batch failed; trying again", "batch", ch.batch.ID, "err", err.Error())
				pending++
				continue
			}
			old := ch.batch
			mu.Lock()
			ch.batch = b
			mu.Unlock()
			if old.Status != b.Status || old.RequestCounts != b.RequestCounts {
				r.Log.Info("batch", "batch", b.ID, "status", b.Status, "completed", b.RequestCounts.Completed, "failed", b.RequestCounts.Failed, "total", b.RequestCounts.Total)
			}
			if !batchapi.Terminal(b.Status) {
				pending++
			}
		}
		if pending == 0 && r.Ctx.Err() == nil {
			return nil
		}
		if sleep(r.Ctx, wait) != nil {
			return e.leaveBatches(cl, chunks)
		}
		wait = min(2*wait, e.opt.Batch.Poll)
	}
}

// leaveBatches ends a run stopped by a signal while batches run.
func (e *engine) leaveBatches(cl *batchapi.Client, chunks []*batchChunk) error {
	var ids []string
	for _, ch := range chunks {
		if !batchapi.Terminal(ch.batch.Status) {
			ids = append(ids, ch.batch.ID)
		}
	}
	sort.Strings(ids)
	if !e.opt.Batch.CancelOnExit {
		e.r.Log.Warn("stopped while batches run: they go on at the provider; the same command with --resume polls them", "batches", strings.Join(ids, " "))
		return e.r.Ctx.Err()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(e.r.Ctx), 10*time.Second)
	defer cancel()
	for _, id := range ids {
		if _, err := cl.Cancel(ctx, id); err != nil {
			e.r.Log.Error("--cancel-on-exit: cancelling failed", "batch", id, "err", err.Error())
		} else {
			e.r.Log.Warn("--cancel-on-exit: batch cancelled", "batch", id)
		}
	}
	return e.r.Ctx.Err()
}

// writeKept writes the records kept aside in pass 1: those from an earlier
// output as they were, the others with their results.
func (e *engine) writeKept(plan *batchPlan, res *batchapi.Results) error {
	label := "batch"
	if len(e.opt.BaseURLs) > 0 {
		label = oai.Label(e.opt.BaseURLs[0])
	}
	each := func(fn func(*record.Record) error) error {
		in, err := stream.Open(plan.spill, nil)
		if err != nil {
			return err
		}
		defer in.Close()
		for {
			line, _, err := in.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			rec, err := record.Parse(line)
			if err != nil {
				return err
			}
			if plan.kept[rec.ID()] {
				e.st.resumed.Add(1)
				err = e.out.put(rec, e.sampleOf(rec))
			} else {
				err = fn(rec)
			}
			if err != nil {
				return err
			}
		}
	}
	return e.importResults(each, res, label, plan.built)
}
