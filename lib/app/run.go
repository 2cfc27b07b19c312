package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ifkit/ifkit/lib/progress"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/urfave/cli/v2"
)

// Run is one invocation: parsed flags, the input and output streams, counters.
type Run struct {
	*cli.Context
	Tool    string
	Command string // the subcommand, for gen-context
	Ctx     context.Context
	Log     *slog.Logger
	Shard   Shard

	env          Env
	kind         Kind
	text         bool
	started      time.Time
	files        []string
	first        *stream.Input
	inCompress   *stream.Compression // the first input's, which auto mirrors
	out          *stream.Output
	outMu        sync.Mutex
	outPath      string
	compress     stream.Compression
	compressAuto bool
	progressMode progress.Mode
	maxFail      MaxFailures
	skipInvalid  bool
	signal       atomic.Pointer[os.Signal]
	afterOutput  []func()
	afterDone    []func()
	unlock       func()                      // releases -o's lock (stream.Lock); nil without -o
	owned        []ownedFile                 // the files this run writes (the ownership rule, own.go)
	paid         func(*record.Record) bool   // Tool.Paid
	answerer     func(*record.Record) string // Tool.Answerer
	parts        *partsState
	lake         *lakeOut // -o DIR/ without --shard
	textDir      string   // -o DIR/ of a report-writing tool (OutputDir)
	runState
	failures   failureGroups
	ids        map[string]idPlace // every id read, for the duplicate check
	at         idPlace            // where the record Records gives fn was read (Place)
	inputBytes atomic.Int64       // the input files' total size; -1 when one is a pipe
	reading    atomic.Pointer[stream.Input]
	doneBytes  atomic.Int64 // the sizes of the inputs read to the end
	summary    []any
	usage      any                                // SetUsage: the manifests' "usage"
	emitOnly   func(*record.Record) (bool, error) // EmitOnly

	// Counters, read by the progress line and the summary.
	Read, Written, Failed, Invalid, Skipped atomic.Int64
	// Status adds tool-specific text (in flight, tokens/s) to the progress line.
	Status func() string
}

// Getenv reads the environment the run was given.
func (r *Run) Getenv(k string) string { return r.env.Getenv(k) }

// Stderr is where a tool may print human-readable reports.
func (r *Run) Stderr() io.Writer { return redact.Writer(r.env.Stderr) }

func (r *Run) setup() error {
	var err error
	if r.kind == Server {
		return nil
	}
	if r.progressMode, err = progress.ParseMode(r.String("progress")); err != nil {
		return Usagef("%v", err)
	}
	if r.maxFail, err = ParseMaxFailures(r.String("max-failures")); err != nil {
		return Usagef("%v", err)
	}
	if r.compress, r.compressAuto, err = stream.ParseCompression(r.String("compress")); err != nil {
		return Usagef("%v", err)
	}
	if err := r.setupShard(); err != nil {
		return err
	}
	r.outPath = r.String("output")
	if r.outPath == "-" {
		r.outPath = ""
	}
	if r.kind == Filter {
		r.skipInvalid = r.Bool("skip-invalid")
		r.files = r.Args().Slice()
		if len(r.files) == 0 {
			r.files = []string{"-"}
		}
		if r.files, err = r.expandFolders(r.files); err != nil {
			return err
		}
		if err := r.claimOutput(); err != nil {
			return err
		}
		// The first input is opened now: auto compression mirrors it. (A
		// partitioned folder of an empty run has no file at all.)
		if len(r.files) > 0 {
			if r.first, err = stream.Open(r.files[0], r.env.Stdin); err != nil {
				return openError(r.files[0], err)
			}
			r.inCompress = &r.first.Compression
		}
	} else if r.Args().Len() > 0 {
		return Usagef("unexpected arguments %q", r.Args().Slice())
	} else if err := r.claimOutput(); err != nil {
		return err
	}
	if err := r.startLake(); err != nil {
		return err
	}
	return r.startPart()
}

// Output opens the output stream on first use, so a run that fails before
// writing anything leaves no file behind.
func (r *Run) output() (*stream.Output, error) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if r.out != nil {
		return r.out, nil
	}
	c := r.compress
	if r.compressAuto {
		switch {
		case r.outPath != "":
			c = stream.ByExtension(r.outPath)
		case r.text || !isRegular(r.env.Stdout):
			// A pipe feeds the next stage (compressing it would only cost
			// CPU on both sides) and a terminal is read by a person.
			c = stream.None
		case r.inCompress != nil:
			// `stage < in.jsonl.zst > out.jsonl.zst`: keep the file's form.
			c = *r.inCompress
		default:
			c = stream.None
		}
	}
	o, err := stream.Create(r.outPath, c, r.env.Stdout)
	if err != nil {
		return nil, err
	}
	if r.parts != nil && r.parts.path != "" {
		o.Checksum() // for the part's manifest
	}
	r.out = o
	return o, nil
}

// Records calls fn for every valid input record of this shard, in order.
// Bad lines end the run with exit 3 unless --skip-invalid; fn may return
// Invalid(err) for records whose content the stage cannot use.
func (r *Run) Records(fn func(*record.Record) error) error {
	var size int64
	for _, name := range r.files {
		st, err := os.Stat(name)
		if err != nil || !st.Mode().IsRegular() {
			size = -1 // stdin or a pipe: no ETA
			break
		}
		size += st.Size()
	}
	r.inputBytes.Store(size)
	for i, name := range r.files {
		in := r.first
		if i > 0 {
			var err error
			if in, err = stream.Open(name, r.env.Stdin); err != nil {
				return openError(name, err)
			}
		}
		r.reading.Store(in)
		err := r.readAll(in, fn)
		r.doneBytes.Add(in.Size)
		r.readStreamed(in)
		in.Close()
		if err != nil {
			return err
		}
	}
	r.first = nil
	return nil
}

// openError makes an unopenable input bad input (exit 3) that names the file once.
func openError(name string, err error) error {
	var le *stream.LineError
	if errors.As(err, &le) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &stream.LineError{File: name, Err: err}
}

func (r *Run) readAll(in *stream.Input, fn func(*record.Record) error) error {
	var lines int64
	for {
		if r.Ctx.Err() != nil {
			return r.Ctx.Err()
		}
		line, n, err := in.Next()
		if err == io.EOF {
			return r.parts.counted(in.Name, lines)
		}
		if err != nil {
			return err
		}
		lines++
		rec, err := record.Parse(line)
		if err != nil {
			id := ""
			if rec != nil {
				id = rec.ID()
			}
			if err := r.invalid(&stream.LineError{File: in.Name, Line: n, ID: id, Err: err}); err != nil {
				return err
			}
			continue
		}
		if keep, err := r.admit(in, rec); err != nil {
			return err
		} else if !keep {
			r.Skipped.Add(1)
			continue
		}
		who := ""
		if r.answerer != nil {
			who = r.answerer(rec)
		}
		if prev, dup := r.firstSeen(in.Name, n, r.InputRun()+"\x00"+who+"\x00"+rec.ID()); dup {
			what := "duplicate id"
			if who != "" {
				what += " answered by " + who
			}
			if err := r.invalid(&stream.LineError{File: in.Name, Line: n, ID: rec.ID(), Err: fmt.Errorf("%s: already read at %s", what, prev)}); err != nil {
				return err
			}
			continue
		}
		r.Read.Add(1)
		r.at = idPlace{in.Name, n}
		if err := fn(rec); err != nil {
			var inv *invalidError
			if errors.As(err, &inv) {
				if err := r.invalid(&stream.LineError{File: in.Name, Line: n, ID: rec.ID(), Err: inv.err}); err != nil {
					return err
				}
				continue
			}
			return err
		}
	}
}

// firstSeen records where an id was first read. An id twice is bad input in
// every stage: two answers to one request would be counted twice by
// aggregate-ifs, or resume would keep one at random; in aggregate-ifs the
// key is the id of one answerer's records (Tool.Answerer), so the answers of
// several models to one item are read side by side. Under --skip-invalid the
// first is kept and the rest counted as invalid.
func (r *Run) firstSeen(file string, line int, id string) (prev string, dup bool) {
	if r.ids == nil {
		r.ids = map[string]idPlace{}
	}
	if p, ok := r.ids[id]; ok {
		return fmt.Sprintf("%s:%d", p.file, p.line), true
	}
	r.ids[id] = idPlace{file, line}
	return "", false
}

// Place is where the record Records is giving its fn was read: a tool that
// holds a record back to take it after the input's end names its line.
func (r *Run) Place() (file string, line int) { return r.at.file, r.at.line }

// idPlace is where an id was first read (file shares the input name's bytes).
type idPlace struct {
	file string
	line int
}

func (r *Run) invalid(le *stream.LineError) error {
	if !r.skipInvalid {
		return le
	}
	if r.Invalid.Add(1) <= 10 {
		r.Log.Warn("skipping invalid input", "at", le.Error())
	}
	return nil
}

type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }

// Invalid marks an error as bad input in the record being processed: the run
// exits 3 naming file, line and id, or skips it under --skip-invalid.
func Invalid(err error) error { return &invalidError{err} }

// Invalidf is Invalid with formatting.
func Invalidf(format string, args ...any) error { return Invalid(fmt.Errorf(format, args...)) }

// AfterOutput registers fn to run once every written record has reached the
// output file: after it was closed (complete) or abandoned as FILE.partial
// (after a signal or an error). A tool uses it to remove files the output
// supersedes, such as the earlier partial output a resumed run copied.
func (r *Run) AfterOutput(fn func()) { r.afterOutput = append(r.afterOutput, fn) }

// AfterComplete registers fn to run once the output is complete (closed and
// in place), before the AfterOutput functions; never after an interrupted
// run. A tool uses it to remove earlier outputs that an interrupted run may
// still need: the records it had not reached are only there.
func (r *Run) AfterComplete(fn func()) { r.afterDone = append(r.afterDone, fn) }

// AddSummary adds a key and value to the closing summary line, which is
// printed only after the output is complete (so a reader that went away,
// as with "| head", leaves stderr quiet).
func (r *Run) AddSummary(key string, value any) { r.summary = append(r.summary, key, value) }

// SetUsage gives the run's account of what it paid (tokens, answers by
// origin, cost: lib/cost), which the manifests of -o DIR/ and of shard
// parts carry as "usage". Call it before the action returns.
func (r *Run) SetUsage(v any) { r.usage = v }

// Write writes one record.
func (r *Run) Write(rec *record.Record) error {
	if r.lake != nil {
		if err := r.writeLake(rec); err != nil {
			return err
		}
		r.Written.Add(1)
		return nil
	}
	o, err := r.output()
	if err != nil {
		return err
	}
	if err := o.WriteFunc(func(dst []byte) []byte { return redactTail(dst, rec.AppendJSON) }); err != nil {
		return err
	}
	r.Written.Add(1)
	return nil
}

// TextWriter writes a report (tables, not records) to the output.
func (r *Run) TextWriter() io.Writer { return textWriter{r, false} }

type textWriter struct {
	r   *Run
	raw bool
}

// BinaryWriter writes a binary report (Parquet) to the output as it is:
// redaction would corrupt it, and it holds only numbers and names the tool
// computed.
func (r *Run) BinaryWriter() io.Writer { return textWriter{r, true} }

// BinaryToTerminal reports whether a binary report would go to a terminal
// (no -o and stdout is one), which a tool refuses.
func (r *Run) BinaryToTerminal() bool { return r.outPath == "" && progress.IsTerminal(r.env.Stdout) }

// OutputDir is the folder -o DIR/ named for a report-writing tool (one file
// per table), "" otherwise.
func (r *Run) OutputDir() string { return r.textDir }

func (w textWriter) Write(p []byte) (int, error) {
	if w.r.textDir != "" {
		return 0, Usagef("-o %s/ is a folder, which this output format does not write", w.r.textDir)
	}
	o, err := w.r.output()
	if err != nil {
		return 0, err
	}
	b := p
	if !w.raw {
		b = redact.Bytes(p)
	}
	if _, err := o.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redactTail appends a record line to dst and masks any secret in it
// (lib/redact): every record a tool writes passes here.
func redactTail(dst []byte, appendLine func([]byte) []byte) []byte {
	n := len(dst)
	dst = appendLine(dst)
	if redact.Found(dst[n:]) {
		dst = append(dst[:n], redact.Bytes(dst[n:])...) // Bytes made a copy
	}
	return dst
}

// EmitOnly makes Emit write only the records keep accepts (it may change
// them), before the shard takes its own: every shard sees the same choice
// (gen-context --limit).
func (r *Run) EmitOnly(keep func(*record.Record) (bool, error)) { r.emitOnly = keep }

// Emit writes a generated record if EmitOnly's function keeps it and its id
// belongs to this shard.
func (r *Run) Emit(rec *record.Record) error {
	if r.emitOnly != nil {
		if ok, err := r.emitOnly(rec); !ok || err != nil {
			return err
		}
	}
	if !r.Shard.Keep(rec.ID()) {
		r.Skipped.Add(1)
		return nil
	}
	return r.Write(rec)
}

// Fail sets the record's error (stage defaults to this tool) and counts it
// against --max-failures.
func (r *Run) Fail(rec *record.Record, e *record.Error) {
	if e.Stage == "" {
		e.Stage = r.Tool
	}
	rec.Fail(e)
	r.CountFailure(e)
}

// Map is a one-in, one-out stage: fn changes the record; a *record.Error it
// returns becomes the record's error field instead of stopping the run.
func (r *Run) Map(fn func(*record.Record) error) error {
	return r.FlatMap(func(rec *record.Record, emit func(*record.Record) error) error {
		if err := fn(rec); err != nil {
			return err
		}
		return emit(rec)
	})
}

// FlatMap is a one-in, many-out stage (expand-templates, split-subtasks).
func (r *Run) FlatMap(fn func(rec *record.Record, emit func(*record.Record) error) error) error {
	return r.Records(func(rec *record.Record) error {
		err := fn(rec, r.Write)
		var re *record.Error
		if errors.As(err, &re) {
			r.Fail(rec, re)
			return r.Write(rec)
		}
		return err
	})
}

// runAfterOutput runs the AfterComplete functions when complete, then the
// AfterOutput ones.
func (r *Run) runAfterOutput(complete bool) {
	if complete {
		for _, fn := range r.afterDone {
			fn()
		}
	}
	for _, fn := range r.afterOutput {
		fn()
	}
}

func (r *Run) status() string {
	el := time.Since(r.started).Seconds()
	s := fmt.Sprintf("%s: %d read, %d written, %d failed, %.0f rec/s", r.Tool, r.Read.Load(), r.Written.Load(), r.Failed.Load(), float64(r.Written.Load())/max(el, 1e-9))
	if r.Status != nil {
		s += ", " + r.Status()
	}
	if eta, ok := r.eta(el); ok {
		s += ", ETA " + eta.String()
	}
	return s
}

// eta extrapolates from the share of the input files read so far (compressed
// bytes) to the number of records, and from the write rate to the time left.
func (r *Run) eta(elapsed float64) (time.Duration, bool) {
	in, size := r.reading.Load(), r.inputBytes.Load()
	if size <= 0 || in == nil {
		return 0, false
	}
	done := float64(r.doneBytes.Load()+in.Consumed.Load()) / float64(size)
	read, written := float64(r.Read.Load()), float64(r.Written.Load())
	if done <= 0 || written <= 0 || elapsed <= 0 {
		return 0, false
	}
	left := max(read/min(done, 1)-written, 0) / (written / elapsed)
	return time.Duration(left) * time.Second, true
}

func (r *Run) closeInputs() {
	if r.first != nil {
		r.first.Close()
		r.first = nil
	}
}

// finish completes or abandons the output, prints the summary and returns the
// exit code.
func (r *Run) finish(err error) (int, error) {
	r.closeInputs()
	r.outMu.Lock()
	out := r.out
	r.outMu.Unlock()
	if r.lake != nil {
		err = r.finishLake(err)
	} else if out == nil && err == nil && r.kind != Server && r.textDir == "" {
		// No record written: still produce an (empty) output.
		var oerr error
		if out, oerr = r.output(); oerr != nil {
			err = oerr
		}
	}
	if out != nil {
		if err == nil {
			err = out.Close()
			if err == nil {
				r.runAfterOutput(true)
			}
		} else if out.Records() == 0 && !r.text {
			out.Discard()
		} else if aerr := out.Abandon(); aerr == nil && out.Path != "" {
			r.runAfterOutput(false)
			r.Log.Warn("partial output kept; rerun (with --resume where the tool has it) to complete it", "file", stream.PartialName(out.Path), "records", out.Records())
		}
	}
	var ue *usageError
	if r.kind == Server || errors.As(err, &ue) {
		return exitFor(err), err // a usage error ran nothing worth summing up
	}
	attrs := []any{"read", r.Read.Load(), "written", r.Written.Load(), "failed", r.Failed.Load(), "seconds", fmt.Sprintf("%.2f", time.Since(r.started).Seconds())}
	if n := r.Invalid.Load(); n > 0 {
		attrs = append(attrs, "invalid_skipped", n)
	}
	if n := r.Skipped.Load(); n > 0 {
		attrs = append(attrs, "other_shards", n)
	}
	if r.Shard.N > 1 {
		attrs = append(attrs, "shard", r.Shard.String())
	}
	attrs = append(attrs, r.summary...)
	r.Log.Info("summary", attrs...)
	r.logFailures()
	if err != nil {
		return exitFor(err), err
	}
	total := int(r.Read.Load())
	if r.kind == Generator {
		total = int(r.Written.Load())
	}
	if r.maxFail.Exceeded(int(r.Failed.Load()), total) {
		return ExitTooManyFail, fmt.Errorf("%d of %d records failed (--max-failures %s); the output is complete, failed records carry \"error\"", r.Failed.Load(), total, r.String("max-failures"))
	}
	return ExitOK, nil
}

// isRegular reports whether stdout is a regular file (a redirect to disk).
func isRegular(f *os.File) bool {
	if f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// drawMode is --progress for a stage whose stdout is f. The stages of a
// pipeline share one terminal: under auto only the last one (its stdout is
// not a pipe) draws the line, so they do not overwrite each other.
func drawMode(m progress.Mode, f *os.File) progress.Mode {
	if m != progress.Auto || f == nil {
		return m
	}
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		return progress.Never
	}
	return m
}
