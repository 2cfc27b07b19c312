package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ifkit/ifkit/lib/lake"
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
