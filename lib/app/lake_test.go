package app

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/provenance"
	"github.com/ifkit/ifkit/lib/record"
)

// The run id depends on the input contents, the program's settings and the
// version, and on nothing else: not the input's name, not stdin versus a
// file, not where or how the output is written.
func TestRunIDIsAContentHash(t *testing.T) {
	dir := t.TempDir()
	in := `{"id":"a","model":"m"}` + "\n" + `{"id":"b","model":"n"}` + "\n"
	other := `{"id":"a","model":"m"}` + "\n"
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f1, f2, f3 := write("one.jsonl", in), write("two.jsonl", in), write("other.jsonl", other)
	runID := func(stdin string, args ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "lake") + "/"
		args = append([]string{"-o", out}, args...)
		code, _, stderr := runFilter(t, func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }, stdin, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		m, err := lake.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Complete || m.Records == 0 || m.Run == "" {
			t.Fatalf("%v: manifest %+v", args, m)
		}
		return m.Run
	}
	base := runID("", f1)
	for _, tc := range []struct {
		name string
		same bool
		id   func() string
	}{
		{"the same content under another name", true, func() string { return runID("", f2) }},
		{"the same content on stdin", true, func() string { return runID(in) }},
		{"partitioned and compressed otherwise", true, func() string { return runID("", "--partition-by", "model", "--compress", "gzip", f1) }},
		{"other content", false, func() string { return runID("", f3) }},
		{"another setting", false, func() string { return runID("", "--skip-invalid", f1) }},
	} {
		if got := tc.id(); (got == base) != tc.same {
			t.Errorf("%s: run %s, base %s; want same=%v", tc.name, got, base, tc.same)
		}
	}
}

// An input that cannot be read twice — a FIFO, or a pipe named /dev/fd/N as
// bash's <(…) gives it — is hashed from the bytes the run read, never opened
// again: re-opening a FIFO waits for a writer that never comes, and a pipe
// read for its hash is gone for the run (it hashed as empty, so different
// inputs shared a run id).
func TestStreamedInputsHashedAsRead(t *testing.T) {
	dir := t.TempDir()
	in := `{"id":"a","model":"m"}` + "\n" + `{"id":"b","model":"n"}` + "\n"
	plain := filepath.Join(dir, "plain.jsonl")
	if err := os.WriteFile(plain, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	pass := func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }
	manifest := func(args ...string) (*lake.Manifest, *parts.Manifest) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out") + "/"
		code, _, stderr := runFilter(t, pass, "", append([]string{"-o", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if m, err := lake.ReadManifest(out); err == nil {
			return m, nil
		}
		pm, err := parts.ReadManifest(filepath.Join(out, "part-00000-of-00001.manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		return nil, pm
	}
	want, _ := manifest(plain)
	feed := func(name string) {
		go func() {
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteString(in)
			f.Close()
		}()
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, shard := range []bool{false, true} {
		feed(fifo)
		args := []string{fifo}
		if shard {
			args = []string{"--shard", "0/1", fifo}
		}
		lm, pm := manifest(args...)
		var input []provenance.Input
		var records int64
		if shard {
			input, records = pm.Input, pm.Records
		} else {
			input, records = lm.Input, lm.Records
			if lm.Run != want.Run {
				t.Errorf("a FIFO: run %s, the same bytes in a file: %s", lm.Run, want.Run)
			}
		}
		if records != 2 || len(input) != 1 || input[0].SHA256 != want.Input[0].SHA256 || input[0].Size != int64(len(in)) {
			t.Errorf("a FIFO (shard %v): %d records, input %+v; want 2 and the file's hash %s", shard, records, input, want.Input[0].SHA256)
		}
	}
	// bash's <(…): a pipe named by /dev/fd/N
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { pw.WriteString(in); pw.Close() }()
	lm, _ := manifest(fmt.Sprintf("/dev/fd/%d", pr.Fd()))
	pr.Close()
	if lm.Records != 2 || lm.Run != want.Run {
		t.Errorf("a pipe as /dev/fd/N: %d records, run %s; want 2 and the file's run %s", lm.Records, lm.Run, want.Run)
	}
}
