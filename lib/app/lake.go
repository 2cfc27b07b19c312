package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/urfave/cli/v2"
)

// lakeOut is a run's partitioned output: -o DIR/ without --shard (DESIGN §7).
type lakeOut struct {
	dir      string
	w        *lake.Writer
	manifest *lake.Manifest
}

// setupLake takes -o DIR/ (with or without --partition-by) as a partitioned
// output. The folder must be new or empty: parts of two runs in one folder
// would be read as one, so each run gets its own folder (a lake of many runs
// is a folder of such folders).
func (r *Run) setupLake(dir string) error {
	if r.defines("resume") && (r.Bool("resume") || len(r.StringSlice("resume-from")) > 0) {
		return Usagef("-o %s/ writes a partitioned folder, which --resume cannot continue: write to -o FILE to resume", dir)
	}
	var keys []lake.Key
	if spec := r.String("partition-by"); spec != "" {
		var err error
		if keys, err = lake.ParseKeys(spec); err != nil {
			return Usagef("%v", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := stream.Lock(filepath.Join(dir, lake.ManifestName))
	if err != nil {
		return Usagef("%v", err)
	}
	r.unlock = unlock
	des, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, de := range des {
		if de.Name() == stream.LockName(lake.ManifestName) {
			continue
		}
		if m, err := lake.ReadManifest(dir); err == nil && !m.Complete {
			return Usagef("-o %s/: the folder holds a run that did not finish (run %s, %d parts); remove it to start over", dir, m.Run, len(m.Parts))
		}
		return Usagef("-o %s/: the folder is not empty (%s); a partitioned run writes into a new or empty folder, one per run", dir, de.Name())
	}
	// The tool writes through Run.Write; "output" no longer names a file it
	// could journal beside.
	if err := r.Set("output", ""); err != nil {
		return err
	}
	r.lake = &lakeOut{dir: dir, w: lake.Create(dir, keys, r.lakeCompression(), partExt(r.String("compress")))}
	r.lake.manifest = &lake.Manifest{PartitionBy: lake.Names(keys), Parts: []lake.Part{}}
	return nil
}

// startLake writes the manifest of a run that has begun (complete: false)
// once every check of the start passed, so that a usage error or a missing
// input leaves no unfinished run behind.
func (r *Run) startLake() error {
	if r.lake == nil {
		return nil
	}
	var err error
	if r.lake.manifest.Provenance, err = r.provenance(false); err != nil {
		return err
	}
	return lake.WriteManifest(r.lake.dir, r.lake.manifest)
}

func (r *Run) lakeCompression() stream.Compression {
	if r.compressAuto {
		return stream.Zstd
	}
	return r.compress
}

// finishLake completes the parts and the manifest, or on failure leaves the
// open parts hidden and says in the manifest that the run did not finish.
func (r *Run) finishLake(runErr error) error {
	l := r.lake
	m := l.manifest
	if runErr == nil {
		runErr = l.w.Close()
	} else {
		l.w.Abandon()
	}
	m.Parts = l.w.Parts()
	m.Records = l.w.Records()
	m.Failed = r.Failed.Load()
	m.Complete = runErr == nil
	var err error
	if m.Provenance, err = r.provenance(true); err == nil {
		for _, f := range r.files {
			if run := r.parts.runs[f]; run != "" && !slices.Contains(m.InputRuns, run) {
				m.InputRuns = append(m.InputRuns, run)
			}
		}
	}
	if werr := lake.WriteManifest(l.dir, m); werr != nil {
		err = errors.Join(err, werr)
	}
	if runErr != nil {
		return runErr
	}
	return err
}

func (r *Run) writeLake(rec *record.Record) error {
	err := r.lake.w.Write(rec, func(dst []byte) []byte { return redactTail(dst, rec.AppendJSON) })
	var ve *lake.ValueError
	if errors.As(err, &ve) {
		return Invalid(err)
	}
	return err
}

func (r *Run) toolName() string {
	if r.Command != "" {
		return r.Tool + " " + r.Command
	}
	return r.Tool
}

// outputOnly are the common flags that choose only where and how the output
// is written, so they are not part of a run's identity.
var outputOnly = []string{"output", "force", "compress", "progress", "log-format", "max-failures", "partition-by"}

// secretName matches flags that hold a secret or name its file (api-key-file,
// judge-api-key-file, …) but not max-tokens or tokenizer.
var secretName = regexp.MustCompile(`(?i)(^|-)(api-?key|key|secret|password|passwd|token)(-file)?$`)

// settings are the flags set on the command line as name=value, sorted: all
// but the output-only ones (common, and the tool's Tool.OutputFlags) and any
// named like a secret (or a secret's file).
func (r *Run) settings() []string {
	var out []string
	for _, name := range r.FlagNames() {
		f := r.lookupFlag(name)
		if f == nil {
			continue
		}
		name = f.Names()[0]
		if slices.Contains(outputOnly, name) || slices.Contains(r.outputFlags, name) || secretName.MatchString(name) {
			continue
		}
		// parts.Command masks credentials in URLs (user:password@host).
		s := parts.Command([]string{name + "=" + r.flagValue(f, name)})[0]
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// flagValue is a flag's value as the manifest's settings show it: lists
// comma-separated.
func (r *Run) flagValue(f cli.Flag, name string) string {
	switch f.(type) {
	case *cli.StringSliceFlag:
		return strings.Join(r.StringSlice(name), ",")
	case *cli.IntSliceFlag:
		return joinNums(r.IntSlice(name))
	case *cli.Int64SliceFlag:
		return joinNums(r.Int64Slice(name))
	case *cli.Float64SliceFlag:
		return joinNums(r.Float64Slice(name))
	}
	return fmt.Sprint(r.Value(name))
}

func joinNums[T int | int64 | float64](xs []T) string {
	ss := make([]string, len(xs))
	for i, x := range xs {
		ss[i] = fmt.Sprint(x)
	}
	return strings.Join(ss, ",")
}

// expandLake replaces a partitioned folder among the inputs by its parts,
// each counted as it is read against the manifest's records.
func (r *Run) expandLake(dir string) ([]string, error) {
	m, listed, failed, err := lake.Check(dir, r.Bool("allow-partial"))
	if err != nil {
		return nil, &stream.LineError{File: dir, Err: err}
	}
	if !m.Complete {
		r.Log.Warn("--allow-partial: reading the parts of a run that did not finish", "folder", dir, "run", m.Run, "parts", len(listed))
	}
	if len(failed) > 0 {
		r.Log.Warn(fmt.Sprintf("--allow-partial: reading %d of %d parts; left out: %s", len(listed), len(m.Parts), strings.Join(failed, "; ")), "folder", dir, "run", m.Run)
	}
	if r.parts.runs == nil {
		r.parts.runs = map[string]string{}
	}
	files := make([]string, len(listed))
	for i, l := range listed {
		files[i] = l.File
		r.parts.runs[l.File] = m.Run
		r.parts.expect(l.File, l.Records)
	}
	return files, nil
}

// lookupFlag finds a defined flag by any of its names.
func (r *Run) lookupFlag(name string) cli.Flag {
	for _, f := range r.allFlags() {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// isFolderOutput reports whether -o names a folder: a trailing slash or an
// existing directory.
func isFolderOutput(out string) bool {
	return out != "" && (strings.HasSuffix(out, "/") || isDir(out))
}
