package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ifkit/ifkit/lib/stream"
	"github.com/urfave/cli/v2"
)

// claimOutput is the one output-ownership rule every tool follows before it
// reads, renames or writes anything of -o FILE:
//
//   - the run holds FILE.lock for its whole life (stream.Lock): a second
//     writer exits 2 naming the first one's PID;
//   - FILE.partial is never a symbolic link (it would be written through) and
//     never one of the inputs, stdin included (it would be truncated);
//   - in a tool that can --resume (infer-batch, judge), FILE.partial and its
//     journal hold paid answers: a run without --resume that finds them
//     refuses, and --force moves them aside to FILE.partial.bak-N rather than
//     truncating them. Other stages recompute their output and overwrite
//     their own partial file.
//
// It also checks the output's place before the first record: a missing
// folder or an unwritable one fails here (creating the lock file), not when
// the first record is written.
func (r *Run) claimOutput(inputs []string) error {
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
	if st, err := os.Lstat(partial); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return Usagef("-o %s: %s is a symbolic link; ifkit never writes through one: remove it", out, partial)
	}
	if err := stream.CheckNotInput(out, inputs, r.env.Stdin); err != nil {
		return Usagef("%v", err)
	}
	if !r.defines("resume") || r.Bool("resume") || len(r.StringSlice("resume-from")) > 0 {
		return nil
	}
	var held []string
	for _, f := range []string{partial, partial + ".journal"} {
		if st, err := os.Stat(f); err == nil && st.Size() > 0 {
			held = append(held, f)
		}
	}
	if len(held) == 0 {
		return nil
	}
	if !r.Bool("force") {
		return Usagef("-o %s: %s holds answers of an earlier run that did not finish: --resume continues it, --force starts over and keeps it as %s.bak-N", out, held[0], filepath.Base(partial))
	}
	for _, f := range held {
		aside, err := backupName(f)
		if err != nil {
			return err
		}
		if err := os.Rename(f, aside); err != nil {
			return err
		}
		r.Log.Warn("--force: an earlier run's unfinished output moved aside", "file", f, "to", aside)
	}
	return nil
}

// CheckOutputFile checks, before anything is read, a file that a flag other
// than -o names for writing (aggregate-ifs --rows, --items): a folder there,
// or a missing folder to put it in, would fail only at the final rename,
// after the whole stage ran.
func CheckOutputFile(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if isFolderOutput(path) {
		return Usagef("--%s %s is a folder: give a file name", flag, path)
	}
	if dir := filepath.Dir(path); !isDir(dir) {
		return Usagef("--%s %s: the folder %s does not exist", flag, path, dir)
	}
	return nil
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
