package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/urfave/cli/v2"
)

// The ownership rule: every file a run writes — -o FILE and its partial
// file, journal, spill and aside files (lib/infer), the files other flags
// name (--rows, --items, --html, --stats), manifests and the folders of a
// partitioned run — is
//
//   - never one of the run's inputs, stdin included, compared by device and
//     inode (a name can differ: ./x, a hard link), nor another file this run
//     writes;
//   - never written through a symbolic link: temporary and partial names are
//     opened with O_NOFOLLOW (stream), whole files are renamed over their
//     name (replacing a link there, never following it), and the folders of
//     a partitioned run are created inside it, never through a link
//     (lake.Writer);
//   - checked before the first record is read, so a usage error costs
//     nothing.
//
// -o FILE also gets claimOutput's rules below; the other files go through
// ClaimFile (named by a flag, checked at start), claim (a part's manifest)
// or OpenOwned (beside -o, opened by the tool); files a flag names for
// reading are checked against them all by ClaimInputs.

// claimOutput applies the ownership rule to -o FILE before anything reads,
// renames or writes any of it:
//
//   - the run holds FILE.lock for its whole life (stream.Lock): a second
//     writer exits 2 naming the first one's PID;
//   - FILE.partial is never a symbolic link (it would be written through) and
//     neither it nor FILE is one of the inputs (it would be truncated);
//   - in a tool that can --resume, whose output holds answers that were paid
//     for (Tool.Paid: infer-batch's, judge's verdicts of a judge model), an
//     earlier run's FILE.partial, its journal, or a complete FILE that holds
//     such answers is never replaced silently: a run without --resume
//     refuses, and --force moves them aside to NAME.bak-N rather than
//     truncating them. Output that cost nothing — every other stage's, and a
//     judge's that scored by program — is recomputed: the run overwrites its
//     own partial file, and a complete FILE is replaced when the run
//     completes.
//
// It also checks the output's place before the first record: a missing
// folder or an unwritable one fails here (creating the lock file), not when
// the first record is written.
func (r *Run) claimOutput() error {
	out := r.outPath
	if out == "" {
		return nil
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return Usagef("-o %s is a folder: give a file name, or end it with / (with --shard) for part files", out)
	}
	unlock, err := stream.Lock(out)
	if err != nil {
		return Usagef("%v", err)
	}
	r.unlock = unlock
	partial := stream.PartialName(out)
	if err := r.claim("-o", out); err != nil {
		return err
	}
	// The files a tool keeps beside its output (lib/infer's journal, spill
	// and aside files) are named FILE.partial.*.
	des, _ := os.ReadDir(filepath.Dir(out))
	for _, de := range des {
		if de.Type()&os.ModeSymlink != 0 && strings.HasPrefix(de.Name(), filepath.Base(partial)+".") {
			return Usagef("-o %s: %s is a symbolic link; ifkit never writes through one: remove it", out, filepath.Join(filepath.Dir(out), de.Name()))
		}
	}
	if !r.defines("resume") || r.Bool("resume") || len(r.StringSlice("resume-from")) > 0 {
		return nil
	}
	var held []string
	if st, err := os.Stat(partial + ".journal"); err == nil && st.Size() > 0 {
		held = append(held, partial+".journal")
	}
	for _, f := range []string{partial, out} {
		if r.holdsPaid(f) {
			held = append(held, f)
		}
	}
	if len(held) == 0 {
		return nil
	}
	if !r.Bool("force") {
		what := "holds answers of an earlier run that did not finish"
		if held[0] == out {
			what = "is the complete output of an earlier run, with answers that were paid for"
		}
		return Usagef("-o %s: %s %s: --resume continues it (keeping them), --force starts over and keeps it as %s.bak-N", out, held[0], what, filepath.Base(held[0]))
	}
	for _, f := range held {
		aside, err := backupName(f)
		if err != nil {
			return err
		}
		if err := os.Rename(f, aside); err != nil {
			return err
		}
		r.Log.Warn("--force: an earlier run's output moved aside", "file", f, "to", aside)
	}
	return nil
}

// holdsPaid reports whether a file holds a record that Tool.Paid says cost a
// model call. It reads until the first one; a file it cannot read counts as
// holding one (nothing is replaced on a guess), except for the cut at its
// end that a killed writer leaves.
func (r *Run) holdsPaid(f string) bool {
	if st, err := os.Stat(f); err != nil || st.Size() == 0 {
		return false
	}
	in, err := stream.Open(f, nil)
	if err != nil {
		return true
	}
	defer in.Close()
	for {
		line, _, err := in.Next()
		if err == io.EOF || errors.Is(err, stream.ErrTruncated) {
			return false
		}
		if err != nil {
			return true
		}
		if rec, err := record.Parse(line); err != nil || r.paid == nil || r.paid(rec) {
			return true
		}
	}
}

// ClaimFile applies the ownership rule to a file that a flag other than -o
// names for writing (aggregate-ifs --rows, --items, --html; --stats), before
// anything is read: not one of the inputs nor another output of the run
// (`aggregate-ifs --rows j.jsonl j.jsonl` replaced its input), no link at
// its temporary name, and a folder to put it in (a folder there, or a
// missing one, would fail only at the final rename, after the whole stage
// ran).
func (r *Run) ClaimFile(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if isFolderOutput(path) {
		return Usagef("--%s %s is a folder: give a file name", flag, path)
	}
	if dir := filepath.Dir(path); !isDir(dir) {
		return Usagef("--%s %s: the folder %s does not exist", flag, path, dir)
	}
	return r.claim("--"+flag, path)
}

// ClaimInputs applies the ownership rule from the other side to files that
// a flag names for reading (infer-batch --batch-import): none may be a file
// the run writes (`--batch-import r.jsonl -o r.jsonl` replaced the results it
// read with its output).
func (r *Run) ClaimInputs(flag string, files []string) error {
	for _, f := range files {
		for _, o := range r.owned {
			if sameFile(o.path, f) || sameFile(stream.PartialName(o.path), f) {
				return Usagef("--%s %s: %s writes it; %v", flag, f, o.flag, stream.ErrSameFile)
			}
		}
	}
	return nil
}

// claim checks one output path and remembers it as the run's.
func (r *Run) claim(flag, path string) error {
	partial := stream.PartialName(path)
	if st, err := os.Lstat(partial); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return Usagef("%s %s: %s is a symbolic link; ifkit never writes through one: remove it", flag, path, partial)
	}
	if err := stream.CheckNotInput(path, r.files, r.env.Stdin); err != nil {
		return Usagef("%s %s: %v", flag, path, err)
	}
	abs, _ := filepath.Abs(path)
	for _, o := range r.owned {
		if o.abs == abs || sameFile(o.path, path) {
			return Usagef("%s %s: %s already writes it", flag, path, o.flag)
		}
	}
	r.owned = append(r.owned, ownedFile{flag: flag, path: path, abs: abs})
	return nil
}

// ownedFile is a file this run writes, by the flag that named it.
type ownedFile struct{ flag, path, abs string }

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// OpenOwned opens a file the tool writes beside its output (a journal, a
// spill or aside file) under the ownership rule: never through a symbolic
// link planted at the name (O_NOFOLLOW), never one of the inputs.
func (r *Run) OpenOwned(path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := stream.CheckNotInput(path, r.files, r.env.Stdin); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link; ifkit never writes through one: remove it", path)
	}
	return f, err
}

// backupName is the first free FILE.bak-N.
func backupName(f string) (string, error) {
	for n := 1; ; n++ {
		b := fmt.Sprintf("%s.bak-%d", f, n)
		if _, err := os.Lstat(b); os.IsNotExist(err) {
			return b, nil
		} else if err != nil {
			return "", err
		}
	}
}

// defines reports whether the tool (or subcommand) has a flag called name.
func (r *Run) defines(name string) bool { return r.lookupFlag(name) != nil }

// allFlags are the tool's (or subcommand's) flags, common ones included.
func (r *Run) allFlags() []cli.Flag {
	var flags []cli.Flag
	if r.App != nil {
		flags = append(flags, r.App.Flags...)
	}
	for _, c := range r.Lineage() {
		if c.Command != nil {
			flags = append(flags, c.Command.Flags...)
		}
	}
	return flags
}
