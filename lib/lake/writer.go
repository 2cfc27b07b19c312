package lake

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
)

// MaxOpen bounds the parts open at once: each holds a 4 MiB buffer, a
// compressor and a file.
const MaxOpen = 16

// HoldLimit bounds the bytes of the records held in memory for the
// partitions that have no open part. A run over more than MaxOpen
// partitions in mixed order would otherwise close a part and start another
// for nearly every record. When the held records pass HoldLimit, the
// partition holding the most gets a part, in place of the one used longest
// ago: every part started then gets at least HoldLimit / (partitions) bytes
// at once, and a run whose held records never pass it writes one part per
// partition.
const HoldLimit = 64 << 20

// Writer routes records to the parts of their partitions.
type Writer struct {
	dir  string
	keys []Key
	comp stream.Compression
	ext  string

	mu        sync.Mutex
	names     namer
	open      map[string]*openPart // by relative folder
	held      map[string]*heldPart // records waiting for a part, by relative folder
	heldBytes int
	holdLimit int            // HoldLimit; tests lower it
	next      map[string]int // the next part number of each folder
	done      []Part
	tick      int64
	records   int64
}

type openPart struct {
	out  *stream.Output
	part Part
	used int64
}

// heldPart is the records of a partition without an open part, as lines,
// in the order they came.
type heldPart struct {
	lines   []byte
	records int64
	vals    map[string]*string
}

// Create starts a writer into dir, which must exist.
func Create(dir string, keys []Key, c stream.Compression, ext string) *Writer {
	return &Writer{dir: dir, keys: keys, comp: c, ext: ext, open: map[string]*openPart{}, held: map[string]*heldPart{}, holdLimit: HoldLimit, next: map[string]int{}}
}

// folderOf is the partition of a record as its folder; an error is bad input.
func (w *Writer) folderOf(rec *record.Record) (string, map[string]*string, error) {
	vals := make([]string, len(w.keys))
	present := make([]bool, len(w.keys))
	for i, k := range w.keys {
		v, ok, err := k.Value(rec)
		if err != nil {
			return "", nil, err
		}
		// A folder name is written as it is: a key that reached a value (a
		// model name a server made up) is masked here.
		vals[i], present[i] = redact.String(v), ok
	}
	rel, m := w.names.folder(w.keys, vals, present)
	return rel, m, nil
}

// Write appends the line appendLine makes to the part of rec's partition,
// or holds it until the partition gets a part (HoldLimit). An error of type
// *ValueError is the record's fault, not the writer's.
func (w *Writer) Write(rec *record.Record, appendLine func(dst []byte) []byte) error {
	rel, vals, err := w.folderOf(rec)
	if err != nil {
		return &ValueError{err}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.open[rel]
	if p == nil && len(w.open) < MaxOpen && w.held[rel] == nil {
		if p, err = w.start(rel, vals); err != nil {
			return err
		}
	}
	w.records++
	if p == nil {
		return w.hold(rel, vals, appendLine)
	}
	w.tick++
	p.used = w.tick
	if err := p.out.WriteFunc(appendLine); err != nil {
		return err
	}
	p.part.Records++
	return nil
}

// hold keeps a record of a partition without an open part; past the
// limit, the partition holding the most gets a part for its records.
func (w *Writer) hold(rel string, vals map[string]*string, appendLine func(dst []byte) []byte) error {
	h := w.held[rel]
	if h == nil {
		h = &heldPart{vals: vals}
		w.held[rel] = h
	}
	before := len(h.lines)
	h.lines = append(appendLine(h.lines), '\n')
	h.records++
	w.heldBytes += len(h.lines) - before
	if w.heldBytes <= w.holdLimit {
		return nil
	}
	var most string
	for k, h := range w.held {
		if most == "" || len(h.lines) > len(w.held[most].lines) {
			most = k
		}
	}
	_, err := w.release(most)
	return err
}

// release writes a partition's held records to a new part of it, which
// stays open, closing the part used longest ago when MaxOpen are open.
func (w *Writer) release(rel string) (*openPart, error) {
	h := w.held[rel]
	delete(w.held, rel)
	w.heldBytes -= len(h.lines)
	p, err := w.start(rel, h.vals)
	if err != nil {
		return nil, err
	}
	w.tick++
	p.used = w.tick
	for lines := h.lines; len(lines) > 0; {
		line, rest, _ := bytes.Cut(lines, []byte{'\n'})
		if err := p.out.WriteLine(line); err != nil {
			return nil, err
		}
		lines = rest
	}
	p.part.Records += h.records
	return p, nil
}

// ValueError is a record whose partition field cannot name a folder.
type ValueError struct{ Err error }

func (e *ValueError) Error() string { return e.Err.Error() }
func (e *ValueError) Unwrap() error { return e.Err }

func (w *Writer) start(rel string, vals map[string]*string) (*openPart, error) {
	if len(w.open) >= MaxOpen {
		var oldest string
		for k, p := range w.open {
			if oldest == "" || p.used < w.open[oldest].used {
				oldest = k
			}
		}
		if err := w.closePart(oldest); err != nil {
			return nil, err
		}
	}
	dir, err := mkdirInside(w.dir, rel)
	if err != nil {
		return nil, err
	}
	n := w.next[rel]
	w.next[rel] = n + 1
	name := fmt.Sprintf("part-%05d%s", n, w.ext)
	// The hidden name ends in .partial: DuckDB's globs match hidden files,
	// so the extension, not the dot, keeps readers away from it.
	out, err := stream.CreateVia(filepath.Join(dir, name), filepath.Join(dir, "."+name+".partial"), w.comp)
	if err != nil {
		return nil, err
	}
	out.Checksum()
	p := &openPart{out: out, part: Part{Path: path.Join(rel, name), Partition: vals}}
	w.open[rel] = p
	return p, nil
}

func (w *Writer) closePart(rel string) error {
	p := w.open[rel]
	delete(w.open, rel)
	if err := p.out.Close(); err != nil {
		return err
	}
	p.part.SHA256, p.part.Size = p.out.Sum()
	w.done = append(w.done, p.part)
	return nil
}

// Close completes every open part (each renamed into place), then writes
// the held records, a part for each partition, one part open at a time.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, rel := range slices.Sorted(maps.Keys(w.open)) {
		errs = append(errs, w.closePart(rel))
	}
	for _, rel := range slices.Sorted(maps.Keys(w.held)) {
		if _, err := w.release(rel); err != nil {
			return errors.Join(append(errs, err)...)
		}
		errs = append(errs, w.closePart(rel))
	}
	return errors.Join(errs...)
}

// Abandon leaves the open parts under their hidden names, for a run that
// stopped early: no reader mistakes them for complete parts, and --resume
// reads them. The held records go to hidden parts of their own, one open
// at a time. It reports whether everything could be written.
func (w *Writer) Abandon() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	abandon := func(rel string) {
		errs = append(errs, w.open[rel].out.Abandon())
		delete(w.open, rel)
	}
	for rel := range w.open {
		abandon(rel)
	}
	for _, rel := range slices.Sorted(maps.Keys(w.held)) {
		if _, err := w.release(rel); err != nil {
			errs = append(errs, err)
			continue
		}
		abandon(rel)
	}
	return errors.Join(errs...)
}

// Parts lists the completed parts by path.
func (w *Writer) Parts() []Part {
	w.mu.Lock()
	defer w.mu.Unlock()
	ps := slices.Clone(w.done)
	slices.SortFunc(ps, func(a, b Part) int { return cmp.Compare(a.Path, b.Path) })
	return ps
}

// Records is the number of records written.
func (w *Writer) Records() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.records
}

// mkdirInside makes the folders of rel under root, each a folder of its own:
// a symbolic link planted at one of their names (root is the run's, named
// by the user, and may be one) is refused, never followed, so no part is
// written outside the run's folder.
func mkdirInside(root, rel string) (string, error) {
	dir := root
	for _, seg := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, seg)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		if st, err := os.Lstat(dir); err != nil {
			return "", err
		} else if !st.IsDir() {
			return "", fmt.Errorf("%s is not a folder (a symbolic link?); ifkit never writes through one: remove it", dir)
		}
	}
	return dir, nil
}
