package infer

import (
	"os"
	"sync"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// journal is FILE.partial.journal: every record that got an answer (or a
// final error) from an endpoint is appended here, uncompressed, with one
// write as soon as it completes. The output itself is buffered, compressed
// and ordered, so a record can wait there (behind a slow request in the
// reorder window, or for the next flush) for seconds; a kill -9 in that time
// would otherwise lose answers that were paid for. --resume reads the journal
// as one more earlier output; a run that ends (completely, or abandoned after
// a signal) removes it.
type journal struct {
	mu   sync.Mutex
	f    *os.File
	r    *app.Run
	name string
	buf  []byte
}

func journalName(out string) string { return stream.PartialName(out) + ".journal" }

func openJournal(r *app.Run, name string) *journal {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		r.Log.Warn("cannot write the journal; a kill -9 may lose answers that were still buffered", "file", name, "err", err.Error())
		return nil
	}
	j := &journal{f: f, r: r, name: name}
	r.AfterOutput(func() {
		j.close()
		os.Remove(name)
	})
	return j
}

func (j *journal) add(rec *record.Record) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return
	}
	j.buf = append(rec.AppendJSON(j.buf[:0]), '\n')
	if _, err := j.f.Write(j.buf); err != nil {
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
		j.f.Close()
		j.f = nil
	}
}
