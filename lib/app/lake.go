package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/urfave/cli/v2"
)

// lakeOut is a run's partitioned output: -o DIR/ without --shard (docs/lake.md).
type lakeOut struct {
	dir      string
	w        *lake.Writer
	manifest *lake.Manifest
	earlier  []string // --resume: the earlier runs' parts (setAsideParts)
}

// setupLake takes -o DIR/ (with or without --partition-by) as a partitioned
// output. The folder must be new or empty: parts of two runs in one folder
// would be read as one, so each run gets its own folder (a lake of many runs
// is a folder of such folders). --resume continues the run a folder holds,
// finished or not: its parts are set aside (setAsideParts) for the tool to
// read as earlier outputs, and the run writes the folder anew.
func (r *Run) setupLake(dir string) error {
	resume := r.defines("resume") && (r.Bool("resume") || len(r.StringSlice("resume-from")) > 0)
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
	r.lake = &lakeOut{dir: dir}
	if err := r.checkLakeFolder(dir, resume); err != nil {
		return err
	}
	if resume {
		if err := r.setAsideParts(); err != nil {
			return err
		}
	}
	// The tool writes through Run.Write; "output" no longer names a file it
	// could journal beside (LakeRunFile does).
	if err := r.Set("output", ""); err != nil {
		return err
	}
	r.lake.w = lake.Create(dir, keys, r.lakeCompression(), partExt(r.String("compress")))
	r.lake.manifest = &lake.Manifest{PartitionBy: lake.Names(keys), Parts: []lake.Part{}}
	return nil
}

// checkLakeFolder refuses a folder that holds anything but a partitioned
// run that --resume continues.
func (r *Run) checkLakeFolder(dir string, resume bool) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, de := range des {
		if de.Name() == stream.LockName(lake.ManifestName) {
			continue
		}
		m, err := lake.ReadManifest(dir)
		switch {
		case err == nil && resume:
			return nil
		case err == nil && !m.Complete && r.defines("resume"):
			return Usagef("-o %s/: the folder holds a run that did not finish (run %s): --resume continues it; remove the folder to start over", dir, m.Run)
		case err == nil && !m.Complete:
			return Usagef("-o %s/: the folder holds a run that did not finish (run %s, %d parts); remove it to start over", dir, m.Run, len(m.Parts))
		}
		return Usagef("-o %s/: the folder is not empty (%s); a partitioned run writes into a new or empty folder, one per run", dir, de.Name())
	}
	return nil
}

// lakeEarlier is the folder, inside a partitioned folder that --resume
// continues, that holds the part files of the runs before it, numbered and
// without a data extension, so that no reader takes them for parts (the
// "_" keeps Spark and Hive away, and no *.jsonl.zst glob matches them).
// They are removed once the folder is complete.
const lakeEarlier = "_earlier"

// setAsideParts moves the folder's part files, complete or left unfinished
// by a kill or a signal (.part-N….partial), into lakeEarlier, and removes
// the partition folders they leave empty.
func (r *Run) setAsideParts() error {
	dir := r.lake.dir
	earlier := filepath.Join(dir, lakeEarlier)
	if err := os.MkdirAll(earlier, 0o755); err != nil {
		return err
	}
	next := len(listFiles(earlier)) + 1
	var folders []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == earlier:
			return filepath.SkipDir
		case d.IsDir():
			if p != dir {
				folders = append(folders, p)
			}
			return nil
		case !lakePart.MatchString(d.Name()):
			return nil
		}
		for {
			to := filepath.Join(earlier, fmt.Sprintf("%05d", next))
			next++
			if _, err := os.Lstat(to); os.IsNotExist(err) {
				return os.Rename(p, to)
			}
		}
	})
	if err != nil {
		return fmt.Errorf("--resume: set aside the parts of %s: %w", dir, err)
	}
	for _, f := range slices.Backward(folders) {
		os.Remove(f) // only when empty
	}
	os.Remove(earlier) // only when empty: a folder with no run has nothing to set aside
	r.lake.earlier = listFiles(earlier)
	r.AfterComplete(func() { os.RemoveAll(earlier) })
	return nil
}

// lakePart matches a part file's name, complete or hidden while written.
var lakePart = regexp.MustCompile(`^(part-\d{5,}\..*|\.part-\d{5,}\..*\.partial)$`)

// listFiles lists a folder's files, sorted.
func listFiles(dir string) []string {
	des, _ := os.ReadDir(dir)
	var fs []string
	for _, de := range des {
		if de.Type().IsRegular() {
			fs = append(fs, filepath.Join(dir, de.Name()))
		}
	}
	return fs
}

// LakeRunFile is, for -o DIR/, the name a tool gives the files it keeps
// beside an output, as FILE is for -o FILE (infer-batch's journal
// DIR/_run.partial.journal, its spill and set-aside files); "" for other
// outputs.
func (r *Run) LakeRunFile() string {
	if r.lake == nil {
		return ""
	}
	return filepath.Join(r.lake.dir, "_run")
}

// EarlierParts are the part files of the runs that an -o DIR/ --resume run
// continues (set aside by setAsideParts), for the tool to read as earlier
// outputs.
func (r *Run) EarlierParts() []string {
	if r.lake == nil {
		return nil
	}
	return r.lake.earlier
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
	var ue *usageError
	if errors.As(runErr, &ue) && l.w.Records() == 0 && l.earlier == nil {
		// The tool refused its flags before writing anything: as a usage
		// error found at the start, it leaves no unfinished run behind.
		os.Remove(filepath.Join(l.dir, lake.ManifestName))
		return runErr
	}
	kept := false // every record written is on disk, in complete or hidden parts
	if runErr == nil {
		runErr = l.w.Close()
		kept = runErr == nil
	} else if aerr := l.w.Abandon(); aerr != nil {
		r.Log.Error("the unfinished parts could not be flushed", "folder", l.dir, "err", aerr.Error())
	} else {
		kept = true
	}
	m.Parts = l.w.Parts()
	m.Records = l.w.Records()
	m.Failed = r.Failed.Load()
	m.Usage = r.usage
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
	if kept {
		r.runAfterOutput(runErr == nil && err == nil)
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

// settings are the flags set on the command line as name=value, sorted: all
// but the output-only ones (common, and the tool's Tool.OutputFlags) and
// those marked secret where they are declared (redact.Flag); the values as
// redact.Value writes them.
func (r *Run) settings() []string {
	var out []string
	for _, name := range r.FlagNames() {
		f := r.lookupFlag(name)
		if f == nil {
			continue
		}
		name = f.Names()[0]
		if slices.Contains(outputOnly, name) || slices.Contains(r.outputFlags, name) || redact.IsFlag(name) {
			continue
		}
		s := name + "=" + redact.Value(r.flagValue(f, name))
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
