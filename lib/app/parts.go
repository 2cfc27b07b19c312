package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// PartialField marks every record read from an incomplete set of parts
// (--allow-partial): {"present": k, "of": N, "missing": [...]}. It travels
// with the records through later stages, so aggregate-ifs can say "k of N
// shards" in every table even when it reads a pipe.
const PartialField = "partial_shards"

// partsState is a run's part output (-o DIR/ or -o …/part-IIIII-of-NNNNN.ext
// with --shard) and its folder-of-parts inputs.
type partsState struct {
	path     string // the part being written, "" when the output is not a part
	manifest *parts.Manifest

	whole   map[string]bool       // inputs that are exactly this run's shard: no hash filter
	partial map[string]obj        // inputs from an incomplete set: the PartialField value
	runs    map[string]string     // inputs read from a partitioned folder: its run id
	sets    map[string]*parts.Set // by folder
	records map[string]int64      // the records a part's manifest says it holds
}

func (ps *partsState) expect(part string, records int64) {
	if ps.records == nil {
		ps.records = map[string]int64{}
	}
	ps.records[part] = records
}

// counted checks the records read from an input against its manifest's
// count, when it is a part of a folder: a part cut at a zstd frame boundary,
// or with lines deleted and compressed again, decompresses cleanly, so only
// the count shows what is missing (when its manifest has no sha256).
func (ps *partsState) counted(in string, n int64) error {
	if ps == nil {
		return nil
	}
	want, ok := ps.records[in]
	if !ok || n == want {
		return nil
	}
	return &stream.LineError{File: in, Err: fmt.Errorf("holds %d records, its manifest says %d: the part was cut or changed after it was written; re-run the task that wrote it", n, want)}
}

type obj = map[string]any

// setupShard resolves --shard (auto needs the output folder, whose parts say
// N) and, when the output is a part, its file name.
func (r *Run) setupShard() error {
	out := r.String("output")
	if out == "-" {
		out = ""
	}
	shardFlag := r.String("shard")
	dir := ""
	toFolder := isFolderOutput(out)
	pi, pn, _, named := parts.Parse(filepath.Base(out))
	switch {
	case toFolder:
		dir = filepath.Clean(out)
	case named:
		dir = filepath.Dir(out)
	}
	shards := r.Int("shards")
	var note string
	var err error
	if r.Shard, note, err = ParseShard(shardFlag, r.env.Getenv, shards, dir); err != nil {
		return Usagef("%v", err)
	}
	if shards > 0 && shardFlag != "auto" {
		return Usagef("--shards goes with --shard auto (with --shard I/N, N is the count)")
	}
	if note != "" {
		r.Log.Info(note)
	}
	r.parts = &partsState{}
	if r.String("partition-by") != "" && (!toFolder || shardFlag != "") {
		return Usagef("--partition-by writes a partitioned folder: give -o DIR/ (a trailing slash or an existing folder), without --shard")
	}
	if dir == "" {
		return nil
	}
	switch {
	case toFolder && shardFlag == "" && r.text:
		// A report-writing tool writes one file per table there (OutputDir).
		r.textDir = dir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return r.Set("output", "")
	case toFolder && shardFlag == "":
		return r.setupLake(dir)
	case named && (r.Shard.I != pi || r.Shard.N != pn):
		return Usagef("-o %s is shard %d of %d, but this run is shard %s (--shard %q)", out, pi, pn, r.Shard, shardFlag)
	}
	if n, err := parts.FolderCount(dir); err != nil {
		return Usagef("%v", err)
	} else if n > 0 && n != r.Shard.N {
		return Usagef("shard %s: %s holds parts of %d shards; a re-run keeps the first run's count, or write to an empty folder", r.Shard, dir, n)
	}
	if toFolder {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		out = filepath.Join(dir, parts.Name(r.Shard.I, r.Shard.N, partExt(r.String("compress"))))
		if err := r.Set("output", out); err != nil {
			return err
		}
	}
	r.parts.path = out
	return nil
}

// partExt is a new part's extension: zstd unless --compress says otherwise,
// since parts are large and zstd parts concatenate.
func partExt(compress string) string {
	switch compress {
	case "gzip":
		return ".jsonl.gz"
	case "none":
		return ".jsonl"
	}
	return ".jsonl.zst"
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// startPart writes the part's manifest, marked not complete, before any
// record, and completes it once the part file is in place.
func (r *Run) startPart() error {
	if r.parts == nil || r.parts.path == "" {
		return nil
	}
	m := &parts.Manifest{Shard: r.Shard.I, Count: r.Shard.N, Part: filepath.Base(r.parts.path)}
	var err error
	if m.Provenance, err = r.provenance(false); err != nil {
		return err
	}
	r.parts.manifest = m
	mp := parts.ManifestPath(r.parts.path)
	if err := r.claim("the manifest of -o", mp); err != nil {
		return err
	}
	if err := m.Write(mp); err != nil {
		return err
	}
	r.AfterOutput(func() {
		_, perr := os.Stat(stream.PartialName(r.parts.path))
		_, ferr := os.Stat(r.parts.path)
		m.Complete = os.IsNotExist(perr) && ferr == nil
		if m.Complete {
			m.SHA256, m.Size = r.out.Sum()
		}
		m.Records = int64(r.out.Records())
		m.Failed = r.Failed.Load()
		m.Usage = r.usage
		var err error
		if m.Provenance, err = r.provenance(true); err != nil {
			r.Log.Error("describing the part's inputs", "err", err)
		}
		if err := m.Write(mp); err != nil {
			r.Log.Error("writing the part's manifest", "file", mp, "err", err)
		}
	})
	return nil
}

// expandFolders replaces each folder among the inputs by its parts in shard
// order, after checking them as a set (parts.Check). A run that is itself
// shard I of the folder's N reads part I alone, whole.
func (r *Run) expandFolders(files []string) ([]string, error) {
	if r.IsSet("import") {
		return files, nil // official result files (and folders of them) are read by the importer as given
	}
	var out []string
	for _, f := range files {
		if f == "-" || !isDir(f) {
			out = append(out, f)
			continue
		}
		if lake.IsLake(f) {
			fs, err := r.expandLake(f)
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
			continue
		}
		ps := r.parts
		only := -1
		if n, err := parts.FolderCount(f); err == nil && r.Shard.N > 1 && n == r.Shard.N {
			only = r.Shard.I
		}
		set, err := parts.Check(f, only, r.Bool("allow-partial"))
		if err != nil {
			return nil, &stream.LineError{File: f, Err: err}
		}
		if ps.sets == nil {
			ps.sets, ps.whole, ps.partial = map[string]*parts.Set{}, map[string]bool{}, map[string]obj{}
		}
		ps.sets[f] = set
		var mark obj
		if len(set.Missing) > 0 && only < 0 {
			mark = obj{"present": set.Present(), "of": set.Count, "missing": set.Missing}
			r.Log.Warn(fmt.Sprintf("--allow-partial: reading %d of %d shards; left out: %s", set.Present(), set.Count, strings.Join(set.Failed, "; ")), "folder", f, "missing", set.Missing)
		}
		for _, p := range set.Parts {
			out = append(out, p.Path)
			ps.expect(p.Path, p.Manifest.Records)
			ps.whole[p.Path] = only >= 0
			if mark != nil {
				ps.partial[p.Path] = mark
			}
		}
	}
	return out, nil
}

// admit decides whether a record read from in belongs to this run: the
// --shard filter, except for a part that is this run's shard. (An id twice,
// across parts too, is bad input: readAll's duplicate check.)
func (r *Run) admit(in *stream.Input, rec *record.Record) (bool, error) {
	ps := r.parts
	if ps == nil || ps.sets == nil {
		return r.Shard.Keep(rec.ID()), nil
	}
	whole, fromParts := ps.whole[in.Name]
	if !fromParts {
		return r.Shard.Keep(rec.ID()), nil
	}
	if !whole && !r.Shard.Keep(rec.ID()) {
		return false, nil
	}
	if mark := ps.partial[in.Name]; mark != nil && !rec.Has(PartialField) {
		if err := rec.Set(PartialField, mark); err != nil {
			return false, err
		}
	}
	return true, nil
}
