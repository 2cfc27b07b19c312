package infer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// Resume reads earlier outputs and copies their finished records into the
// new output, so those ids are not sent again.
//
// With -o FILE the sources are FILE (a completed earlier run), FILE.partial
// (an interrupted one), its journal FILE.partial.journal and any
// FILE.partial.resume-N. lib/app writes the new
// output to FILE.partial and creates it (truncating) on the first write, so
// the earlier FILE.partial is first renamed to FILE.partial.resume-N. Those
// aside files stay sources until the new output has reached the disk (closed,
// or abandoned after a signal): a kill at any moment leaves every answered
// record in FILE, FILE.partial or an aside file, and the next --resume reads
// them all. Duplicates across sources are dropped by id.
//
// The copied records come first in the new output, then the rest in input
// order: an ordered earlier run wrote a prefix of the input, so the result is
// still in input order unless records were retried.
func (e *engine) resume() error {
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
		if _, err := os.Stat(f); err != nil {
			return app.Usagef("--resume-from: %v", err)
		}
		from = append(from, f)
	}
	if out := e.opt.Output; out != "" {
		if _, err := os.Stat(out); err == nil {
			add(out)
		}
		prev, next, err := listAsides(out)
		if err != nil {
			return err
		}
		asides = prev
		for _, f := range []string{stream.PartialName(out), journalName(out)} {
			if _, err := os.Stat(f); err != nil {
				continue
			}
			aside := fmt.Sprintf("%s.resume-%d", stream.PartialName(out), next)
			next++
			if err := os.Rename(f, aside); err != nil {
				return fmt.Errorf("--resume: set aside %s: %w", f, err)
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
	if len(sources) == 0 {
		e.r.Log.Info("--resume: no earlier output found; starting from the beginning", "output", e.opt.Output)
	}

	// Pass 1: which ids have an answer anywhere, so an error in one source
	// does not shadow an answer in another.
	answered := map[string]struct{}{}
	for _, src := range sources {
		if err := e.scan(src, func(rec *record.Record, _ []byte) error {
			if !rec.Errored() {
				answered[rec.ID()] = struct{}{}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// Pass 2: copy one record per id.
	e.done = map[string]struct{}{}
	retried := 0
	for _, src := range sources {
		if err := e.scan(src, func(rec *record.Record, line []byte) error {
			id := rec.ID()
			if _, ok := e.done[id]; ok || !e.r.Shard.Keep(id) {
				return nil
			}
			if rec.Errored() {
				if _, ok := answered[id]; ok {
					return nil
				}
				if e.opt.RetryErrors {
					retried++
					return nil
				}
				var re record.Error
				if rec.Decode("error", &re) == nil && re.Stage == e.r.Tool {
					e.r.Failed.Add(1)
					e.st.failed.Add(1)
				}
			}
			e.done[id] = struct{}{}
			e.st.resumed.Add(1)
			return e.r.Write(rec)
		}); err != nil {
			return err
		}
	}
	if len(sources) > 0 {
		e.r.Log.Info("--resume", "sources", strings.Join(sources, ", "), "copied", len(e.done), "errors_to_retry", retried)
	}
	if len(asides) > 0 {
		e.r.AfterOutput(func() {
			for _, a := range asides {
				os.Remove(a)
			}
		})
	}
	return nil
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
