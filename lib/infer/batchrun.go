package infer

import (
	"bufio"
	"bytes"
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
	"strings"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/batchapi"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// BatchStateName is where --batch-api keeps the ids of the batches it
// created for -o FILE, so a killed run polls them again with --resume
// instead of paying for them twice.
func BatchStateName(out string) string { return stream.PartialName(out) + ".batches" }

// batchChunk is one batch input file being written.
type batchChunk struct {
	url   string
	path  string
	f     *os.File
	w     *bufio.Writer
	n     int
	size  int64
	h     hash.Hash
	sum   string // hex sha256 of the file: the same requests give the same batch
	batch *batchapi.Batch
}

// batchState is one line of FILE.partial.batches.
type batchState struct {
	Hash     string `json:"hash"`
	URL      string `json:"url"`
	Requests int    `json:"requests"`
	FileID   string `json:"file_id"`
	BatchID  string `json:"batch_id"`
}

// batchAPI runs the records through the endpoint's Batch API: the records
// are kept aside in a spill file while their requests are written to batch
// files, which are uploaded and run as batches; when every batch has ended
// the results are downloaded and the kept records are written with them, in
// input order, as --batch-import would.
func (e *engine) batchAPI() error {
	r, opt := e.r, e.opt
	if len(opt.BaseURLs) > 1 {
		r.Log.Warn("--batch-api runs every batch on the first --base-url", "endpoint", oai.Label(opt.BaseURLs[0]))
	}
	e.client = oai.New(1, opt.ConnectTimeout, opt.APIKey)
	defer e.client.Close()

	state := ""
	if opt.Output != "" {
		state = BatchStateName(opt.Output)
	}
	saved, err := e.savedBatches(state)
	if err != nil {
		return err
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

	spill, chunks, built, err := e.writeBatchFiles(work)
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		r.Log.Info("--batch-api: no record needs a call")
		return e.writeKept(spill, batchapi.NewResults(), built)
	}
	cl := &batchapi.Client{HTTP: e.client.HTTP, Base: opt.BaseURLs[0], Key: opt.APIKey}
	if err := e.submit(cl, chunks, saved, state); err != nil {
		return err
	}
	if err := e.pollBatches(cl, chunks); err != nil {
		return err
	}
	res, err := e.downloadResults(cl, chunks)
	if err != nil {
		return err
	}
	if err := e.writeKept(spill, res, built); err != nil {
		return err
	}
	if state != "" {
		r.AfterComplete(func() { os.Remove(state) })
	}
	return nil
}

// savedBatches reads the batches an earlier run created for -o FILE
// (state; "" without -o), and refuses what would pay twice or overwrite
// answers.
func (e *engine) savedBatches(state string) (map[string]batchState, error) {
	if state == "" {
		return nil, nil
	}
	opt := e.opt
	saved, err := readBatchState(state)
	if err != nil {
		return nil, err
	}
	if len(saved) > 0 && !opt.Resume {
		return nil, app.Usagef("%s holds the batches of an earlier run that did not finish: --resume polls them (nothing is paid twice); remove the file to start over", state)
	}
	if len(saved) == 0 && opt.Resume {
		// Without batches of its own, FILE.partial holds an online run's
		// answers, which this run's output would overwrite.
		for _, f := range []string{stream.PartialName(opt.Output), journalName(opt.Output)} {
			if st, err := os.Stat(f); err == nil && st.Size() > 0 {
				return nil, app.Usagef("--batch-api --resume: %s holds the answers of an online run, not batches: finish it with --resume without --batch-api, or move it away", f)
			}
		}
	}
	return saved, nil
}

// writeBatchFiles is the first pass: every record is kept aside in a spill
// file (its path is returned) while the requests are written to batch
// files in work, split by endpoint, --batch-max-requests and bytes. built
// has the calls made, by id.
func (e *engine) writeBatchFiles(work string) (spillPath string, chunks []*batchChunk, built map[string]*call, err error) {
	opt := e.opt
	spill, err := os.Create(filepath.Join(work, "records.jsonl"))
	if err != nil {
		return "", nil, nil, err
	}
	defer spill.Close()
	sw := bufio.NewWriterSize(spill, 1<<20)
	built = map[string]*call{}
	open := map[string]*batchChunk{} // by url: a batch has one endpoint
	var buf []byte
	err = e.r.Records(func(rec *record.Record) error {
		buf = append(rec.AppendJSON(buf[:0]), '\n')
		if _, err := sw.Write(buf); err != nil {
			return err
		}
		c, re, _, err := e.callFor(rec)
		if err != nil || c == nil || re != nil {
			return err
		}
		// importResults applies the result to this call: not built twice.
		built[rec.ID()] = &call{path: c.path, maxTokens: c.maxTokens, cut: c.cut, promptTokens: c.promptTokens, tokenizer: c.tokenizer, exact: c.exact}
		url := batchURL(c)
		buf = batchapi.AppendInput(buf[:0], rec.ID(), url, c.body)
		ch := open[url]
		if ch != nil && (ch.n >= opt.Batch.MaxRequests || ch.size+int64(len(buf)) > opt.Batch.MaxBytes) {
			if err := ch.close(); err != nil {
				return err
			}
			ch = nil
		}
		if ch == nil {
			ch = &batchChunk{url: url, path: filepath.Join(work, fmt.Sprintf("batch-%03d.jsonl", len(chunks))), h: sha256.New()}
			if ch.f, err = os.Create(ch.path); err != nil {
				return err
			}
			ch.w = bufio.NewWriterSize(io.MultiWriter(ch.f, ch.h), 1<<20)
			chunks = append(chunks, ch)
			open[url] = ch
		}
		ch.n++
		ch.size += int64(len(buf))
		_, err = ch.w.Write(buf)
		return err
	})
	for _, ch := range open {
		if cerr := ch.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = sw.Flush()
	}
	return spill.Name(), chunks, built, err
}

// submit uploads and creates each batch, and notes it in the state file:
// a batch of the same requests that an earlier run created (saved) is
// polled again, not created again.
func (e *engine) submit(cl *batchapi.Client, chunks []*batchChunk, saved map[string]batchState, state string) error {
	r := e.r
	var sf *os.File
	if state != "" {
		var err error
		if sf, err = os.OpenFile(state, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return err
		}
		defer sf.Close()
	} else {
		r.Log.Warn("--batch-api without -o: a killed run cannot find its batches again (they are logged)")
	}
	for i, ch := range chunks {
		if st, ok := saved[ch.sum]; ok {
			ch.batch = &batchapi.Batch{ID: st.BatchID, RequestCounts: batchapi.RequestCounts{Total: st.Requests}} // status unknown until polled
			r.Log.Info("--resume: polling a batch the earlier run created", "batch", st.BatchID, "requests", st.Requests)
			continue
		}
		if err := r.Ctx.Err(); err != nil {
			return err
		}
		f, err := cl.Upload(r.Ctx, ch.path)
		if err != nil {
			return err
		}
		b, err := cl.Create(r.Ctx, f.ID, ch.url, map[string]string{"ifkit": fmt.Sprintf("%s %d/%d", r.Tool, i+1, len(chunks))})
		if err != nil {
			return err
		}
		ch.batch = b
		r.Log.Info("batch created", "batch", b.ID, "file", f.ID, "requests", ch.n, "bytes", ch.size, "url", ch.url)
		if sf != nil {
			line, _ := record.Marshal(batchState{Hash: ch.sum, URL: ch.url, Requests: ch.n, FileID: f.ID, BatchID: b.ID})
			if _, err := sf.Write(append(line, '\n')); err != nil {
				return err
			}
			if err := sf.Sync(); err != nil {
				return err
			}
		}
	}
	return nil
}

// downloadResults reads the output and error files of the ended batches.
func (e *engine) downloadResults(cl *batchapi.Client, chunks []*batchChunk) (*batchapi.Results, error) {
	res := batchapi.NewResults()
	for _, ch := range chunks {
		b := ch.batch
		if b.Status != batchapi.StatusCompleted {
			e.r.Log.Warn("batch did not complete: its requests without a result get an error", "batch", b.ID, "status", b.Status, "errors", batchErrors(b))
		}
		for _, id := range []*string{b.OutputFileID, b.ErrorFileID} {
			if id == nil || *id == "" {
				continue
			}
			var data bytes.Buffer
			if err := cl.Download(e.r.Ctx, *id, &data); err != nil {
				return nil, err
			}
			if err := res.ReadFrom(b.ID+"/"+*id, &data); err != nil {
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

func readBatchState(name string) (map[string]batchState, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]batchState{}
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var st batchState
		if err := record.Unmarshal(line, &st); err != nil || st.BatchID == "" {
			// A kill while the line was written leaves it torn: that batch
			// is lost to --resume, the others are not.
			if i == bytes.Count(b, []byte("\n")) {
				continue
			}
			return nil, app.Invalidf("%s:%d: not a batch state line", name, i+1)
		}
		m[st.Hash] = st
	}
	return m, nil
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

// writeKept writes the records kept aside in pass 1 with their results
// (built: the calls pass 1 built, by id).
func (e *engine) writeKept(path string, res *batchapi.Results, built map[string]*call) error {
	label := "batch"
	if len(e.opt.BaseURLs) > 0 {
		label = oai.Label(e.opt.BaseURLs[0])
	}
	each := func(fn func(*record.Record) error) error {
		in, err := stream.Open(path, nil)
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
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
	return e.importResults(each, res, label, built)
}
