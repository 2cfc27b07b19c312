package infer

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// resume indexes earlier outputs, so records that were already answered for
// the same request are not sent again.
//
// With -o FILE the sources are FILE (a completed earlier run), FILE.partial
// (an interrupted one), its journal FILE.partial.journal and any
// FILE.partial.resume-N. lib/app writes the new
// output to FILE.partial and creates it (truncating) on the first write, so
// the earlier FILE.partial is first renamed to FILE.partial.resume-N. Those
// aside files stay sources until the new output is complete: a kill or a
// signal at any moment leaves every answered record in FILE, FILE.partial or
// an aside file, and the next --resume reads them all. (A run stopped by a
// signal has not written the earlier answers of the records it had not
// reached yet.)
//
// Nothing is copied here: each usable earlier record is spilled once to a
// plain temporary file (FILE.partial.spill, or one in os.TempDir when writing
// to stdout) and only its place, fingerprint and model stay in memory. run
// writes an earlier record in its input's position when the fingerprints (and
// the models) match, so the output follows the input, a changed request is
// sent again and ids that left the input are dropped. See doc.go for what the
// fingerprint covers.
func (e *engine) resume() error {
	sources, err := e.earlierOutputs()
	if err != nil || len(sources) == 0 {
		return err
	}
	return e.index(sources)
}

// earlierOutputs lists the earlier outputs to read, first setting aside
// FILE.partial and its journal (FILE.partial.resume-N), which the new output
// and journal are about to replace.
func (e *engine) earlierOutputs() ([]string, error) {
	var sources, asides []string
	seen := map[string]bool{}
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil && !seen[abs] {
			seen[abs] = true
			sources = append(sources, p)
		}
	}
	// Check --resume-from before anything is renamed.
	var from []string
	for _, f := range e.opt.ResumeFrom {
		if out := e.opt.Output; out != "" && (sameName(f, stream.PartialName(out)) || sameName(f, journalName(out))) {
			continue // set aside and read with -o below
		}
		st, err := os.Stat(f)
		if err != nil {
			return nil, app.Usagef("--resume-from: %v", err)
		}
		if !st.IsDir() {
			from = append(from, f)
			continue
		}
		files, err := folderOutputs(f)
		if err != nil {
			return nil, err
		}
		from = append(from, files...)
	}
	for _, f := range e.r.EarlierParts() {
		add(f)
	}
	if out := e.opt.Output; out != "" {
		if _, err := os.Stat(out); err == nil {
			add(out)
		}
		prev, next, err := listAsides(out)
		if err != nil {
			return nil, err
		}
		asides = prev
		for _, f := range []string{stream.PartialName(out), journalName(out)} {
			if _, err := os.Stat(f); err != nil {
				continue
			}
			aside := fmt.Sprintf("%s.resume-%d", stream.PartialName(out), next)
			next++
			if err := os.Rename(f, aside); err != nil {
				return nil, fmt.Errorf("--resume: set aside %s: %w", f, err)
			}
			asides = append(asides, aside)
		}
		for _, a := range asides {
			add(a)
		}
	}
	for _, f := range from {
		add(f)
	}
	if len(asides) > 0 {
		// Only a complete output holds every earlier answer: an
		// interrupted one lacks those of the records it had not reached.
		e.r.AfterComplete(func() {
			for _, a := range asides {
				os.Remove(a)
			}
		})
	}
	if len(sources) == 0 {
		e.r.Log.Info("--resume: no earlier output found; starting from the beginning", "output", e.opt.Output)
	}
	return sources, nil
}

// index reads the earlier outputs into the spill file (e.earlier).
func (e *engine) index(sources []string) error {
	// Pass 1: which (id, request, model) have an answer anywhere, so an
	// error in one source does not shadow an answer in another.
	answered := map[earlierKey]struct{}{}
	for _, src := range sources {
		if err := e.scan(src, func(rec *record.Record, _ []byte) error {
			if !rec.Errored() {
				answered[e.keyOf(rec)] = struct{}{}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// Pass 2: spill one record per (id, request, model).
	ix, err := newEarlier(e.r, e.opt.Output)
	if err != nil {
		return err
	}
	e.earlier = ix
	spilled, retried := 0, 0
	for _, src := range sources {
		if err := e.scan(src, func(rec *record.Record, line []byte) error {
			k := e.keyOf(rec)
			if ix.has(k) || !e.r.Shard.Keep(k.id) {
				return nil
			}
			c := candidate{fp: k.fp, model: k.model, errored: rec.Errored()}
			if c.errored {
				if _, ok := answered[k]; ok {
					return nil
				}
				var re record.Error
				c.ours = rec.Decode("error", &re) == nil && re.Stage == e.r.Tool
				// This tool's transient failures are sent again by default: a
				// rerun after an outage finishes the job.
				if e.opt.RetryErrors || c.ours && oai.Transient(re.Kind, re.Status) {
					retried++
					return nil
				}
			}
			spilled++
			return ix.add(k.id, c, line)
		}); err != nil {
			return err
		}
	}
	if err := ix.w.Flush(); err != nil {
		return fmt.Errorf("--resume: write %s: %w", ix.f.Name(), err)
	}
	e.r.Log.Info("--resume", "sources", strings.Join(sources, ", "), "ids", len(ix.byID), "records", spilled, "errors_to_retry", retried)
	return nil
}

// takeEarlier gives an input record its earlier record when one answered
// the same request (earlier.take): it.old is set and it.rec is what is
// written in the input's position. An earlier failure of this tool that is
// kept counts as a failure of this run, in the summary, which covers the
// whole output; so does the model that answered it.
func (e *engine) takeEarlier(it *item) error {
	old, c, changed, err := e.earlier.take(e, it.rec)
	if err != nil {
		return err
	}
	if changed {
		e.earlier.changed++
	}
	if old == nil {
		return nil
	}
	it.rec, it.old = old, true
	if c.ours {
		var re record.Error
		old.Decode("error", &re)
		e.r.CountFailure(&re)
	}
	// Judged again on the way out, with this run's replies (cutcheck.go).
	it.sample = e.sampleOf(old)
	if m := old.String("model"); m != "" && e.opt.Role == "" {
		e.st.resumedModel(m)
	}
	return nil
}

// finishResume ends a run that completed: the earlier answers whose ids
// were not in the input are set aside (before the sources that still hold
// them are removed) and the log says what became of the earlier outputs.
func (e *engine) finishResume() error {
	x := e.earlier
	if x == nil {
		return nil
	}
	kept, err := x.setAside(e.opt.Output)
	if err != nil {
		return err
	}
	e.r.Log.Info("--resume: done with the earlier outputs", "sent_again_changed", x.changed, "ids_not_in_input", len(x.byID))
	if kept > 0 {
		e.r.Log.Warn("--resume: earlier answers whose ids are not in the input were moved aside, not deleted", "file", AsideName(e.opt.Output), "records", kept)
	} else if len(x.byID) > 0 && e.opt.Output == "" {
		e.r.Log.Warn("--resume: earlier records whose ids are not in the input are not in this output (they stay in the --resume-from files)", "ids", len(x.byID))
	}
	return nil
}

// folderOutputs are the earlier outputs in a folder given to --resume-from:
// a partitioned run's (-o DIR/) or a folder of shard parts (--shard), with
// what their runs left unfinished (hidden or .partial parts, journals,
// set-aside files). Another folder is a usage error.
func folderOutputs(dir string) ([]string, error) {
	if !lake.IsLake(dir) {
		if n, err := parts.FolderCount(dir); err != nil || n == 0 {
			return nil, app.Usagef("--resume-from %s: a folder must hold a partitioned run (-o DIR/, with its %s) or shard parts (part-IIIII-of-NNNNN)", dir, lake.ManifestName)
		}
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		name := d.Name()
		for _, skip := range []string{".json", ".lock", ".spill", ".batches"} {
			if strings.HasSuffix(name, skip) {
				return nil // manifests, locks, and the files that hold no records
			}
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, app.Usagef("--resume-from %s: %v", dir, err)
	}
	return files, nil
}

// earlierKey tells earlier records of one id apart: the same id may have
// been answered for an older request or by another model.
type earlierKey struct {
	id    string
	fp    uint64
	model string
}

// candidate is one usable earlier record, stored in the spill file.
type candidate struct {
	off     int64
	n       int
	fp      uint64 // 0: the record has no fingerprinted field and matches by id
	model   string // "": unknown, matches any --model
	errored bool
	ours    bool // an error of this tool: a failure again when it is kept
}

// earlier is the index of the spill file.
type earlier struct {
	r    *app.Run // whose ownership rule opens the aside file
	f    *os.File
	w    *bufio.Writer
	off  int64
	byID map[string][]candidate
	// models interns model names: a million records share a few.
	models map[string]string
	// changed counts the input ids that had earlier records, none of them
	// for this request and model: they are sent again.
	changed int
}

func newEarlier(r *app.Run, out string) (*earlier, error) {
	var f *os.File
	var err error
	if out != "" {
		f, err = r.OpenOwned(stream.PartialName(out)+".spill", os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
	} else {
		f, err = os.CreateTemp("", "infer-resume-*.jsonl")
	}
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	return &earlier{r: r, f: f, w: bufio.NewWriterSize(f, 1<<20), byID: map[string][]candidate{}, models: map[string]string{}}, nil
}

func (x *earlier) add(id string, c candidate, line []byte) error {
	if m, ok := x.models[c.model]; ok {
		c.model = m
	} else {
		x.models[c.model] = c.model
	}
	c.off, c.n = x.off, len(line)
	if _, err := x.w.Write(line); err != nil {
		return fmt.Errorf("--resume: write %s: %w", x.f.Name(), err)
	}
	x.w.WriteByte('\n')
	x.off += int64(len(line)) + 1
	x.byID[id] = append(x.byID[id], c)
	return nil
}

func (x *earlier) has(k earlierKey) bool {
	for _, c := range x.byID[k.id] {
		if c.fp == k.fp && c.model == k.model {
			return true
		}
	}
	return false
}

// take returns the earlier record for an input record, or nil when it must
// be sent: none, or none for this request and model. Each id is taken once;
// what is left at the end was not in the input. changed says the id was
// there but for another request or model.
func (x *earlier) take(e *engine, rec *record.Record) (old *record.Record, c candidate, changed bool, err error) {
	if x == nil {
		return nil, c, false, nil
	}
	id := rec.ID()
	cs, ok := x.byID[id]
	if !ok {
		return nil, c, false, nil
	}
	delete(x.byID, id)
	fp := e.fingerprint(rec)
	found := false
	for _, cand := range cs {
		if cand.fp != 0 && cand.fp != fp || e.opt.Model != "" && cand.model != "" && cand.model != e.opt.Model {
			continue
		}
		// An answer wins over an error for another model.
		if !found || c.errored && !cand.errored {
			c, found = cand, true
		}
	}
	if !found {
		return nil, c, true, nil
	}
	buf := make([]byte, c.n)
	if _, err := x.f.ReadAt(buf, c.off); err != nil {
		return nil, c, false, fmt.Errorf("--resume: read back %s: %w", x.f.Name(), err)
	}
	old, err = record.ParseOwned(buf)
	if err != nil {
		return nil, c, false, fmt.Errorf("--resume: read back %s: %w", x.f.Name(), err)
	}
	if old.Raw(journalFP) != nil {
		// A journal line: what the earlier run added, onto this record.
		for _, k := range old.Keys() {
			if k != "id" && k != journalFP {
				rec.SetRaw(k, old.Raw(k))
			}
		}
		old = rec
	}
	return old, c, false, nil
}

// AsideName is where --resume keeps the earlier answers of ids that are no
// longer in the input: FILE.partial.aside, appended to by every such run.
func AsideName(out string) string { return stream.PartialName(out) + ".aside" }

// setAside writes the earlier answers left untaken — their ids are not in
// this input (a smaller or another input file) — to AsideName(out), so a
// resume never deletes a paid answer; errors are not kept. It runs before
// the sources are removed, and returns how many records it kept.
func (x *earlier) setAside(out string) (int, error) {
	if x == nil || len(x.byID) == 0 || out == "" {
		return 0, nil
	}
	ids := make([]string, 0, len(x.byID))
	for id := range x.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if err := x.w.Flush(); err != nil {
		return 0, err
	}
	f, err := x.r.OpenOwned(AsideName(out), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("--resume: %w", err)
	}
	w := bufio.NewWriter(f)
	n := 0
	for _, id := range ids {
		for _, c := range x.byID[id] {
			if c.errored {
				continue
			}
			buf := make([]byte, c.n)
			if _, err := x.f.ReadAt(buf, c.off); err != nil {
				f.Close()
				return n, fmt.Errorf("--resume: read back %s: %w", x.f.Name(), err)
			}
			w.Write(buf)
			w.WriteByte('\n')
			n++
		}
	}
	err = w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// close removes the spill file: the earlier records it holds are still in
// their sources until the new output is complete.
func (x *earlier) close() {
	if x == nil {
		return
	}
	x.f.Close()
	os.Remove(x.f.Name())
}

func (e *engine) keyOf(rec *record.Record) earlierKey {
	return earlierKey{id: rec.ID(), fp: e.fingerprint(rec), model: e.modelOf(rec)}
}

// fingerprintFields are the fields whose bytes decide whether an earlier
// record answered the same call. infer-batch sends "request" as it is. A
// judge's call is built from the model's record, whose "request" and
// "response" pass through to the judge's output unchanged: a new answer or a
// new request is judged again.
func (e *engine) fingerprintFields() []string {
	if e.opt.Role != "" {
		return []string{"request", "response"}
	}
	return []string{"request"}
}

// fingerprint is two CRC-32s (Castagnoli's and IEEE's polynomials, 64 bits
// together) over the fingerprinted fields' exact bytes, 0 when the record
// has none of them; a journal line says the one it answered. Every answer
// is fingerprinted for the journal: both run in hardware at ~30 GB/s, where
// FNV-1a took half a millisecond per 455 KB prompt.
func (e *engine) fingerprint(rec *record.Record) uint64 {
	if raw := rec.Raw(journalFP); raw != nil {
		s, _ := record.Unquote(raw)
		fp, _ := strconv.ParseUint(s, 16, 64)
		return fp
	}
	var a, b uint32
	add := func(p []byte) {
		a, b = crc32.Update(a, castagnoli, p), crc32.Update(b, crc32.IEEETable, p)
	}
	has := false
	for _, k := range e.fingerprintFields() {
		if rec.Has(k) {
			has = true
			add([]byte(k))
			add(rec.Raw(k))
		}
		add([]byte{0})
	}
	if !has {
		return 0
	}
	return max(uint64(a)<<32|uint64(b), 1)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// modelOf is the model that answered an earlier record: "model" for
// infer-batch; for a judge "model" is the model under test, and its own is
// judgement.judge.model.
func (e *engine) modelOf(rec *record.Record) string {
	if e.opt.Role == "" {
		return rec.String("model")
	}
	return rec.JudgeModel()
}

func sameName(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// listAsides finds FILE.partial.resume-N files and the next free N.
func listAsides(out string) ([]string, int, error) {
	pat := stream.PartialName(out) + ".resume-"
	ms, err := filepath.Glob(globEscape(pat) + "*")
	if err != nil {
		return nil, 0, err
	}
	next := 1
	var found []string
	for _, m := range ms {
		n, err := strconv.Atoi(strings.TrimPrefix(m, pat))
		if err != nil {
			continue
		}
		found = append(found, m)
		next = max(next, n+1)
	}
	sort.Slice(found, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(found[i], pat))
		b, _ := strconv.Atoi(strings.TrimPrefix(found[j], pat))
		return a < b
	})
	return found, next, nil
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// scan reads every complete record of an earlier output. A torn last line
// (a killed writer) and a truncated compressed tail are expected and end the
// file quietly; other bad lines are skipped with a warning.
func (e *engine) scan(name string, fn func(*record.Record, []byte) error) error {
	in, err := stream.Open(name, nil)
	if err != nil {
		// A file killed before its first complete frame: nothing to keep.
		e.r.Log.Warn("--resume: cannot read an earlier output; its records will be sent again", "file", name, "err", err.Error())
		return nil
	}
	defer in.Close()
	bad := 0
	for {
		line, n, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, stream.ErrTruncated) {
				e.r.Log.Info("--resume: earlier output ends in a torn frame; its complete records are used", "file", name, "after_line", n)
			} else {
				e.r.Log.Warn("--resume: stopped reading an earlier output", "file", name, "err", err.Error())
			}
			break
		}
		rec, perr := record.Parse(line)
		if perr != nil {
			bad++
			if bad <= 3 {
				e.r.Log.Info("--resume: skipping an incomplete line of an earlier output", "file", name, "line", n)
			}
			continue
		}
		if err := fn(rec, line); err != nil {
			return err
		}
	}
	return nil
}
