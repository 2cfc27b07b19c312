package infer

import (
	"os"
	"strconv"
	"sync"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/klauspost/compress/zstd"
)

// journal is FILE.partial.journal: every record that got an answer (or a
// final error) from an endpoint is appended here, with one write as soon as
// it completes. The output itself is buffered, compressed and ordered, so a
// record can wait there (behind a slow request in the reorder window, or for
// the next flush) for seconds; a kill -9 in that time would otherwise lose
// answers that were paid for.
//
// A line holds what this run added to the record (model, response or error;
// record.AppendChanges) and the fingerprint of the request it answered
// (journalFP), not the request: the next request's slot waits for this
// write, and compressing a 455 KB prompt again under the journal's lock cost
// up to a millisecond per answer. It is one zstd frame flushed after each
// line: a flushed block is complete on disk, so a kill -9 loses nothing that
// was written (the reader takes every line before the cut). --resume reads
// the journal as one more earlier output and puts a line's fields back onto
// the input record whose id and fingerprint match (earlier.take); a run that
// ends (completely, or abandoned after a signal) removes it.
type journal struct {
	mu   sync.Mutex
	f    *os.File
	enc  *zstd.Encoder
	r    *app.Run
	name string
	buf  []byte
	n    int // records written
}

func journalName(out string) string { return stream.PartialName(out) + ".journal" }

func openJournal(r *app.Run, name string) *journal {
	f, err := r.OpenOwned(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		r.Log.Warn("cannot write the journal; a kill -9 may lose answers that were still buffered", "file", name, "err", err.Error())
		return nil
	}
	// The output's settings (lib/stream): fastest level, a 2 MiB window.
	enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<21), zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Close()
		r.Log.Warn("cannot write the journal; a kill -9 may lose answers that were still buffered", "file", name, "err", err.Error())
		return nil
	}
	j := &journal{f: f, enc: enc, r: r, name: name}
	r.AfterOutput(func() {
		j.close()
		os.Remove(name)
	})
	return j
}

// journalFP is the journal's field with the fingerprint (hex) of the
// request a line answered.
const journalFP = "ifkit_journal_fp"

func (j *journal) add(rec *record.Record, fp uint64) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return
	}
	var ok bool
	j.buf, ok = rec.AppendChanges(j.buf[:0], journalFP, strconv.AppendQuote(nil, strconv.FormatUint(fp, 16)))
	if !ok {
		j.buf = rec.AppendJSON(j.buf) // a field was deleted: the whole record
	}
	j.buf = append(j.buf, '\n')
	_, err := j.enc.Write(j.buf)
	if err == nil {
		err = j.enc.Flush()
	}
	if err == nil {
		j.n++
	}
	if err != nil {
		j.r.Log.Warn("journal write failed; continuing without it", "file", j.name, "err", err.Error())
		j.f.Close()
		j.f = nil
	}
	if cap(j.buf) > 1<<20 {
		j.buf = nil
	}
}

func (j *journal) close() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.enc.Close()
		j.f.Close()
		j.f = nil
		if j.n == 0 {
			// Nothing was answered (a run that failed at start): no answers
			// to keep, so no leftover that would refuse the next plain run.
			os.Remove(j.name)
		}
	}
}
