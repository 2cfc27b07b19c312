package stream

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// MaxLine is the longest record accepted. It is a guard against a corrupt
// file eating all memory, well above LIFBench's 128k-token prompts.
const MaxLine = 256 << 20

// maxLine is MaxLine, lowered by tests.
var maxLine = MaxLine

// Input is one opened input file (or stdin), decompressed.
type Input struct {
	Name        string // as given; "-" for stdin
	Compression Compression
	r           io.Reader
	closers     []func() error
	br          *bufio.Reader
	line        int
	buf         []byte
	// Size is the file's size on disk (0 for stdin or a pipe); Consumed
	// counts the bytes read from it so far, compressed, so progress can say
	// how much of a file is left.
	Size     int64
	Consumed atomic.Int64
	// sum hashes what is read from an input that cannot be read twice
	// (stdin, a pipe, a FIFO, <(…)): its content is known only as it is read.
	sum  hash.Hash
	read int64
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

type hashCounter struct{ in *Input }

func (h hashCounter) Write(p []byte) (int, error) {
	h.in.read += int64(len(p))
	return h.in.sum.Write(p)
}

// Streamed reports whether the input cannot be read twice (stdin, a pipe, a
// FIFO): its hash is Sum's, made from the bytes read, not from the file.
func (in *Input) Streamed() bool { return in.sum != nil }

// Sum is the SHA-256 (hex) and size of the bytes read so far from a
// streamed input, as stored (compressed): the whole input's once it was
// read to the end.
func (in *Input) Sum() (sha string, size int64) {
	if in.sum == nil {
		return "", 0
	}
	return hex.EncodeToString(in.sum.Sum(nil)), in.read
}

// Open opens a file name, or stdin for "" and "-", and sniffs its compression.
func Open(name string, stdin io.Reader) (*Input, error) {
	in := &Input{Name: name}
	var src io.Reader
	if name == "" || name == "-" {
		in.Name = "-"
		src = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		in.closers = append(in.closers, f.Close)
		src = countingReader{f, &in.Consumed}
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			in.Size = st.Size()
		} else if err == nil && !st.IsDir() {
			in.sum = sha256.New()
		}
	}
	if in.Name == "-" {
		in.sum = sha256.New()
	}
	if in.sum != nil {
		src = io.TeeReader(src, hashCounter{in})
	}
	raw := bufio.NewReaderSize(src, 1<<20)
	c, err := sniff(raw)
	if err != nil {
		in.Close()
		return nil, &LineError{File: in.Name, Err: err}
	}
	in.Compression = c
	switch c {
	case Gzip:
		zr, err := gzip.NewReader(raw) // multistream: concatenated members read as one
		if err != nil {
			in.Close()
			return nil, &LineError{File: in.Name, Err: fmt.Errorf("gzip: %w", err)}
		}
		in.closers = append(in.closers, zr.Close)
		in.r = zr
	case Zstd:
		zr, err := zstd.NewReader(raw, zstd.WithDecoderMaxWindow(1<<30), zstd.WithDecoderMaxMemory(8<<30))
		if err != nil {
			in.Close()
			return nil, &LineError{File: in.Name, Err: fmt.Errorf("zstd: %w", err)}
		}
		// Close stops the decoder's goroutines even when we stop before EOF.
		in.closers = append(in.closers, func() error { zr.Close(); return nil })
		in.r = zr
	default:
		in.r = raw
	}
	in.br = bufio.NewReaderSize(in.r, 1<<20)
	if b, _ := in.br.Peek(len(BOM)); bytes.Equal(b, BOM) {
		in.br.Discard(len(BOM))
	}
	return in, nil
}

// BOM is the UTF-8 byte order mark some editors (Notepad, Excel's "CSV UTF-8")
// put at the start of a text file. At the start of any input it is skipped,
// never taken as data: in front of the first vocabulary term or record id it
// would silently change what matches.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadFile reads a whole text file the user names (a vocabulary, corpus,
// template, official dataset, key file), without a leading BOM.
func ReadFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	return bytes.TrimPrefix(b, BOM), err
}

// ReadFileMax is ReadFile for a file that has no business being large (an
// API key, a tokenizer.json): a file over max bytes, or a device such as
// /dev/zero, is refused without being read into memory. A pipe (a key given
// as <(pass show key)) is read up to max.
func ReadFileMax(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tooLarge := fmt.Errorf("%s: larger than %s, more than such a file holds", path, sizeString(max))
	switch {
	case fi.Mode()&os.ModeDevice != 0:
		return nil, fmt.Errorf("%s: a device, not a file", path)
	case fi.Mode().IsRegular() && fi.Size() > max:
		return nil, tooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooLarge
	}
	return bytes.TrimPrefix(b, BOM), nil
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// OpenText opens a text file the user names for streaming, without a leading BOM.
func OpenText(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(f)
	if b, _ := br.Peek(len(BOM)); bytes.Equal(b, BOM) {
		br.Discard(len(BOM))
	}
	return struct {
		io.Reader
		io.Closer
	}{br, f}, nil
}

// Close releases the file and decoder.
func (in *Input) Close() error {
	var first error
	for i := len(in.closers) - 1; i >= 0; i-- {
		if err := in.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	in.closers = nil
	return first
}

// LineError is bad input at a known place: the CLI prints it as file:line and
// exits 3.
type LineError struct {
	File string
	Line int
	ID   string
	Err  error
}

func (e *LineError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("%s:%d: record %q: %v", e.File, e.Line, e.ID, e.Err)
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// ErrTruncated marks a compressed stream that ends mid-frame: every complete
// record before it was delivered first.
var ErrTruncated = errors.New("truncated")

// Next returns the next non-blank line without its line ending, its 1-based
// line number, or io.EOF. The returned slice is valid until the next call.
func (in *Input) Next() ([]byte, int, error) {
	for {
		line, err := in.readLine()
		if err != nil {
			if err == io.EOF && len(line) == 0 {
				return nil, in.line, io.EOF
			}
			if err != io.EOF {
				return nil, in.line, in.wrap(err)
			}
		}
		in.line++
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				return nil, in.line, io.EOF
			}
			continue
		}
		return line, in.line, nil
	}
}

func (in *Input) wrap(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, zstd.ErrMagicMismatch) {
		return &LineError{File: in.Name, Line: in.line, Err: fmt.Errorf("%w %s stream after line %d: %v (the complete records before it were read)", ErrTruncated, in.Compression, in.line, err)}
	}
	var le *LineError
	if errors.As(err, &le) {
		return err
	}
	return &LineError{File: in.Name, Line: in.line + 1, Err: fmt.Errorf("read: %w", err)}
}

// readLine reads through '\n', growing past the bufio buffer up to MaxLine.
func (in *Input) readLine() ([]byte, error) {
	line, err := in.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	in.buf = append(in.buf[:0], line...)
	for {
		line, err = in.br.ReadSlice('\n')
		in.buf = append(in.buf, line...)
		if len(in.buf) > maxLine {
			return nil, &LineError{File: in.Name, Line: in.line + 1, Err: fmt.Errorf("line longer than %d MiB", maxLine>>20)}
		}
		if err != bufio.ErrBufferFull {
			return in.buf, err
		}
	}
}
