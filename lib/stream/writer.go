package stream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// ChunkSize is how much uncompressed data goes into one zstd frame or gzip
// member. Each chunk is complete on its own, so a killed job leaves a prefix
// that any reader decodes, and chunks compress in parallel.
const ChunkSize = 4 << 20

// bufSize is the capacity of the buffer a chunk fills: the line that takes
// it past ChunkSize, up to 1 MiB (a 455 KB prompt's record), is appended
// without growing it, which would copy the 4 MiB before it into a buffer
// twice as large. Its pages are touched only as lines fill them.
const bufSize = ChunkSize + 1<<20

// chunkBufs holds the buffers of chunks already written (or compressed), for
// the next chunks to fill (*[]byte): a new buffer's 5 MiB of pages are
// faulted in one by one as records fill it, on every chunk, while a used
// one's are in place.
var chunkBufs sync.Pool

func newChunkBuf() []byte {
	if p, _ := chunkBufs.Get().(*[]byte); p != nil {
		return (*p)[:0]
	}
	return make([]byte, 0, bufSize)
}

// putChunkBuf gives a chunk's buffer back once nothing reads it; one that
// grew for a very long line is left to the collector.
func putChunkBuf(b []byte) {
	if cap(b) <= 2*bufSize {
		chunkBufs.Put(&b)
	}
}

// FlushEvery bounds how long a finished record can wait in memory before it
// reaches the file, for slow stages such as inference.
const FlushEvery = 2 * time.Second

// Output is a JSONL destination: stdout, or a file written under a temporary
// name and renamed into place by Close.
type Output struct {
	Path        string // "" for stdout
	Compression Compression

	mu      sync.Mutex
	buf     []byte
	dst     *os.File
	tmp     string
	last    time.Time
	records int
	errMu   sync.Mutex // separate from mu: emit blocks on the write loop while holding mu
	err     error
	chunks  chan chunk
	done    chan struct{}
	ticker  *time.Ticker
	enc     *zstd.Encoder
	sum     hash.Hash // the bytes written, when Checksum asked for them
	size    int64
}

// chunk is one compressed piece on its way to the file, in order. It does not
// keep the uncompressed data, which is garbage once compressed.
type chunk struct {
	out chan []byte
}

// PartialName is where a file output is written until it is complete. It is a
// fixed name so a resumed run finds what a killed one wrote.
func PartialName(path string) string { return path + ".partial" }

// Create opens an output. path "" or "-" is stdout.
func Create(path string, c Compression, stdout *os.File) (*Output, error) {
	if path == "" || path == "-" {
		return create("", "", c, stdout)
	}
	return create(path, PartialName(path), c, nil)
}

// CreateVia opens a file output written under tmp until Close renames it to
// path: a lake part's hidden name, which no reader's glob of path's
// extension matches.
func CreateVia(path, tmp string, c Compression) (*Output, error) {
	return create(path, tmp, c, nil)
}

func create(path, tmp string, c Compression, stdout *os.File) (*Output, error) {
	o := &Output{Compression: c, last: time.Now()}
	if path == "" {
		o.dst = stdout
	} else {
		o.Path = path
		o.tmp = tmp
		f, err := openTemp(tmp)
		if err != nil {
			return nil, err
		}
		o.dst = f
	}
	if c == Zstd {
		// EncodeAll takes one of the encoder's `concurrency` states, so chunks
		// compress in parallel only with one state per CPU. Each state keeps
		// twice the window as history. 2 MiB reaches back over several
		// 128k-token prompts that repeat one context (LIFBench requests come
		// out 2.2x smaller than with zstd -1's 512 KiB) while a 1 GB
		// pass-through peaks near 85 MB RSS (512 KiB: 70 MB; 4 MiB: 90 MB).
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithWindowSize(1<<21))
		if err != nil {
			return nil, err
		}
		o.enc = enc
	}
	o.buf = newChunkBuf()
	// One chunk fills while up to GOMAXPROCS compress (one waits in the write
	// loop, the rest here): more would only hold memory without adding speed.
	o.chunks = make(chan chunk, max(1, runtime.GOMAXPROCS(0)-1))
	o.done = make(chan struct{})
	go o.writeLoop(o.chunks) // passed in: finish sets o.chunks to nil, maybe before this goroutine starts
	o.ticker = time.NewTicker(FlushEvery / 2)
	go o.flushLoop()
	return o, nil
}

// WriteLine appends one record line (without the newline).
func (o *Output) WriteLine(line []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.getErr(); err != nil {
		return err
	}
	if o.chunks == nil {
		return errClosed
	}
	o.buf = append(o.buf, line...)
	o.buf = append(o.buf, '\n')
	o.records++
	if len(o.buf) >= ChunkSize {
		o.emit()
	}
	return nil
}

// Write appends raw bytes, for reports rather than records.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.getErr(); err != nil {
		return 0, err
	}
	if o.chunks == nil {
		return 0, errClosed
	}
	o.buf = append(o.buf, p...)
	if len(o.buf) >= ChunkSize {
		o.emit()
	}
	return len(p), nil
}

// WriteFunc appends one record line (without the newline) produced by
// appendLine straight into the output buffer, saving WriteLine's copy.
func (o *Output) WriteFunc(appendLine func(dst []byte) []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.getErr(); err != nil {
		return err
	}
	if o.chunks == nil {
		return errClosed
	}
	o.buf = append(appendLine(o.buf), '\n')
	o.records++
	if len(o.buf) >= ChunkSize {
		o.emit()
	}
	return nil
}

// Records is the number of lines written so far.
func (o *Output) Records() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.records
}

// Flush hands buffered records to the file now.
func (o *Output) Flush() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.buf) > 0 {
		o.emit()
	}
	return o.getErr()
}

func (o *Output) flushLoop() {
	for {
		select {
		case <-o.done: // a stopped ticker never fires again; this ends the goroutine
			return
		case <-o.ticker.C:
		}
		o.mu.Lock()
		if o.chunks == nil {
			o.mu.Unlock()
			return
		}
		if len(o.buf) > 0 && time.Since(o.last) >= FlushEvery {
			o.emit()
		}
		o.mu.Unlock()
	}
}

// emit compresses the buffer on a worker goroutine; the write loop writes the
// results in order. Called with mu held.
func (o *Output) emit() {
	data := o.buf
	o.buf = newChunkBuf()
	o.last = time.Now()
	c := chunk{out: make(chan []byte, 1)}
	go func() { c.out <- o.compress(data) }()
	o.chunks <- c
}

// compress returns the bytes to write; data is given back to chunkBufs here
// when compressed, by the write loop when written as it is.
func (o *Output) compress(data []byte) []byte {
	switch o.Compression {
	case Zstd:
		out := o.enc.EncodeAll(data, make([]byte, 0, len(data)/3))
		putChunkBuf(data)
		return out
	case Gzip:
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		putChunkBuf(data)
		return b.Bytes()
	}
	return data
}

func (o *Output) writeLoop(chunks <-chan chunk) {
	defer close(o.done)
	for c := range chunks {
		b := <-c.out
		if _, err := o.dst.Write(b); err != nil {
			o.setErr(fmt.Errorf("write %s: %w", o.name(), err))
		} else if o.Path != "" {
			startWriteback(o.dst)
		}
		if o.sum != nil {
			o.sum.Write(b)
			o.size += int64(len(b))
		}
		if o.Compression == None {
			putChunkBuf(b)
		}
	}
}

// Checksum makes the output hash the bytes it writes (as stored: compressed),
// for a manifest that lets a reader check the file before reading it. Call
// it before the first write; Sum gives the result once the output is closed.
func (o *Output) Checksum() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sum == nil && o.records == 0 && len(o.buf) == 0 {
		o.sum = sha256.New()
	}
}

// Sum is the SHA-256 (hex) and size of what a closed output wrote, when
// Checksum asked for it ("" otherwise).
func (o *Output) Sum() (sha string, size int64) {
	select {
	case <-o.done: // the write loop is over: sum and size are final
	default:
		return "", 0
	}
	if o.sum == nil {
		return "", 0
	}
	return hex.EncodeToString(o.sum.Sum(nil)), o.size
}

func (o *Output) setErr(err error) {
	o.errMu.Lock()
	if o.err == nil {
		o.err = err
	}
	o.errMu.Unlock()
}

func (o *Output) getErr() error {
	o.errMu.Lock()
	defer o.errMu.Unlock()
	return o.err
}

func (o *Output) name() string {
	if o.Path == "" {
		return "stdout"
	}
	return o.tmp
}

// finish writes everything buffered and stops the workers.
func (o *Output) finish() error {
	o.ticker.Stop()
	o.mu.Lock()
	if o.chunks == nil {
		o.mu.Unlock()
		return o.getErr()
	}
	if len(o.buf) > 0 {
		o.emit()
	}
	ch := o.chunks
	o.chunks = nil
	o.mu.Unlock()
	close(ch)
	<-o.done
	return o.getErr()
}

// Close completes the output: for a file, it is synced and renamed into place.
func (o *Output) Close() error {
	err := o.finish()
	if o.Path == "" {
		return err
	}
	return commit(o.dst, o.tmp, o.Path, err)
}

// openTemp creates (or truncates) the temporary name a file is written
// under. O_NOFOLLOW: never write through a symbolic link planted there.
func openTemp(tmp string) (*os.File, error) {
	return os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o666)
}

// commit puts a file written under tmp into place: synced, closed, renamed
// over path (a reader sees the old file or the new one, never a mix, and a
// symbolic link at path is replaced, not written through). err is the
// writing's outcome: when it is set, tmp stays for the caller to keep or
// remove.
func commit(f *os.File, tmp, path string, err error) error {
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteFile stores a whole file atomically, the way every output file is
// completed: written to PartialName(path), synced and renamed into place.
// Manifests, --stats and the report index are written with it.
func WriteFile(path string, data []byte) error {
	return WriteFileVia(path, PartialName(path), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileVia is WriteFile through a temporary name of the caller's (a
// unique one where writers on several nodes may write the same file, as
// the cache's) with what write puts there, checked by write before the
// rename if it needs to be (a download against its pinned hash). The
// temporary file is created anew, never through a link (a leftover of a
// killed writer is replaced, a link planted there removed, not followed),
// and removed when anything fails.
func WriteFileVia(path, tmp string, write func(f io.Writer) error) error {
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o666)
	if err != nil {
		return err
	}
	if err = commit(f, tmp, path, write(f)); err != nil {
		os.Remove(tmp)
	}
	return err
}

// Abandon writes what was done and leaves it under PartialName, for a run that
// stopped early (a signal, an error); --resume picks it up.
func (o *Output) Abandon() error {
	err := o.finish()
	if o.Path == "" {
		return err
	}
	if cerr := o.dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// Discard removes a file output that holds nothing worth keeping.
func (o *Output) Discard() {
	o.finish()
	if o.Path != "" {
		o.dst.Close()
		os.Remove(o.tmp)
	}
}

var errClosed = errors.New("write to a closed output")

// ErrSameFile is returned when an output is one of the inputs.
var ErrSameFile = errors.New("refusing to overwrite an input file")

// CheckNotInput fails when out, or the FILE.partial a run writes first, is
// the same file as one of the inputs, stdin included (`-o F < F`), by device
// and inode: the run would truncate what it is about to read.
func CheckNotInput(out string, inputs []string, stdin io.Reader) error {
	if out == "" || out == "-" {
		return nil
	}
	for _, o := range []string{out, PartialName(out)} {
		ost, err := os.Stat(o)
		if err != nil {
			continue
		}
		for _, in := range inputs {
			var ist os.FileInfo
			if in == "" || in == "-" {
				f, ok := stdin.(*os.File)
				if !ok {
					continue
				}
				if ist, err = f.Stat(); err != nil {
					continue
				}
				in = "stdin"
			} else if ist, err = os.Stat(in); err != nil {
				continue
			}
			if os.SameFile(ost, ist) {
				return fmt.Errorf("%w %s (%s)", ErrSameFile, in, o)
			}
		}
	}
	return nil
}
