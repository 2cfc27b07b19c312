package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/ifkit/ifkit/lib/progress"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		name string
		flag string
		vars map[string]string
		want Shard
		bad  string // substring of the error, "" for success
	}{
		{"unset", "", nil, Shard{0, 1}, ""},
		{"explicit", "2/4", nil, Shard{2, 4}, ""},
		{"one of one", "0/1", nil, Shard{0, 1}, ""},
		{"index equals count", "4/4", nil, Shard{}, "0 <= I < N"},
		{"negative", "-1/4", nil, Shard{}, "0 <= I < N"},
		{"zero count", "0/0", nil, Shard{}, "0 <= I < N"},
		{"not a fraction", "3", nil, Shard{}, "want I/N"},
		{"words", "a/b", nil, Shard{}, "0 <= I < N"},
		{"auto, array from 0", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "7"}, Shard{3, 8}, ""},
		{"auto, count only", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{3, 8}, ""},
		{"auto, re-run of some tasks", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "15", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "15", "SHARDS": "16"}, Shard{15, 16}, ""},
		{"auto, re-run without N", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "15", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "15"}, Shard{}, "SHARDS=N"},
		{"auto, one task without N", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "0"}, Shard{}, "SHARDS=N"},
		{"auto, array from 1", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"}, Shard{}, "not 0..N-1"},
		{"auto, id past SHARDS", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "1", "SHARDS": "4"}, Shard{}, "not a shard of 4"},
		{"auto, SHARDS over a 0..N-1 array", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SHARDS": "16"}, Shard{2, 16}, ""},
		{"auto, bad SHARDS", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SHARDS": "x"}, Shard{}, "SHARDS"},
		{"auto, non-numeric", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, Shard{}, "not an integer"},
		{"auto, srun tasks", "auto", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "3"}, Shard{1, 3}, ""},
		{"auto, array wins over procid", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_PROCID": "1", "SLURM_NTASKS": "3"}, Shard{0, 2}, ""},
		{"auto, nothing set", "auto", nil, Shard{0, 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ParseShard(tt.flag, env(tt.vars), 0, "")
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("ParseShard(%q) = %v, %v; want an error with %q", tt.flag, got, err, tt.bad)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseShard(%q) = %v, %v; want %v", tt.flag, got, err, tt.want)
			}
		})
	}
}

func TestShardsPartitionExactly(t *testing.T) {
	// Every id lands in exactly one of the N shards, and the shards are not
	// degenerate (hashing must spread ids, including numeric and child ids).
	var ids []string
	for i := range 4000 {
		ids = append(ids, fmt.Sprint(i), fmt.Sprintf("lifbench-%d#%d", i/7, i%7))
	}
	for _, n := range []int{1, 2, 4, 7} {
		seen := map[string]int{}
		for i := range n {
			s := Shard{i, n}
			kept := 0
			for _, id := range ids {
				if s.Keep(id) {
					seen[id]++
					kept++
				}
			}
			if n > 1 && (kept < len(ids)/n*8/10 || kept > len(ids)/n*12/10) {
				t.Errorf("shard %v keeps %d of %d ids: badly balanced", s, kept, len(ids))
			}
		}
		for _, id := range ids {
			if seen[id] != 1 {
				t.Fatalf("n=%d: id %q is in %d shards, want exactly 1", n, id, seen[id])
			}
		}
	}
}

func TestParseMaxFailures(t *testing.T) {
	tests := []struct {
		in            string
		failed, total int
		exceeded, bad bool
	}{
		{"0", 0, 10, false, false},
		{"0", 1, 10, true, false},
		{"3", 3, 10, false, false},
		{"3", 4, 10, true, false},
		{"inf", 1000, 1000, false, false},
		{"-1", 1000, 1000, false, false},
		{"", 5, 10, false, false},
		{"10%", 1, 10, false, false},
		{"10%", 2, 10, true, false},
		{"0%", 1, 1000, true, false},
		{"0%", 0, 0, false, false},
		{"100%", 10, 10, false, false},
		{"2.5%", 3, 100, true, false},
		{"101%", 0, 0, false, true},
		{"-2", 0, 0, false, true},
		{"x", 0, 0, false, true},
		{"5%%", 0, 0, false, true},
	}
	for _, tt := range tests {
		m, err := ParseMaxFailures(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("ParseMaxFailures(%q) err = %v, want error %v", tt.in, err, tt.bad)
			continue
		}
		if !tt.bad && m.Exceeded(tt.failed, tt.total) != tt.exceeded {
			t.Errorf("--max-failures %s with %d of %d failed: exceeded = %v, want %v", tt.in, tt.failed, tt.total, !tt.exceeded, tt.exceeded)
		}
	}
}

// runFilter runs a filter tool in-process on stdin and returns its exit code,
// stdout and stderr.
func runFilter(t *testing.T, action func(*Run) error, stdin string, args ...string) (int, string, string) {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr bytes.Buffer
	tool := Tool{Name: "t", Usage: "test filter", Description: "Example:\n  t < in.jsonl", Kind: Filter, Action: action}
	code := RunTool(tool, append([]string{"t"}, args...), Env{Stdin: strings.NewReader(stdin), Stdout: out, Stderr: &stderr, Getenv: env(nil)})
	data, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, string(data), stderr.String()
}

func TestExitCodes(t *testing.T) {
	passThrough := func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }
	failOdd := func(r *Run) error {
		return r.Map(func(rec *record.Record) error {
			var n int
			if err := rec.Decode("n", &n); err != nil {
				return err
			}
			if n%2 == 1 {
				return &record.Error{Kind: "odd", Message: "odd n"}
			}
			return nil
		})
	}
	rejectOdd := func(r *Run) error {
		return r.Map(func(rec *record.Record) error {
			if strings.HasSuffix(rec.ID(), "1") {
				return Invalidf("ends in 1")
			}
			return nil
		})
	}
	good := "{\"id\":\"a0\",\"n\":0}\n{\"id\":\"a1\",\"n\":1}\n{\"id\":\"a2\",\"n\":2}\n"
	tests := []struct {
		name     string
		action   func(*Run) error
		stdin    string
		args     []string
		code     int
		stdout   string // exact, or "*" for any
		stderrRe []string
	}{
		{"pass-through", passThrough, good, nil, ExitOK, good, []string{"summary", "read=3", "written=3"}},
		{"unknown flag", passThrough, good, []string{"--nope"}, ExitUsage, "", []string{"t: ", "flag provided but not defined: -nope", "see --help"}},
		{"bad shard", passThrough, good, []string{"--shard", "5/4"}, ExitUsage, "", []string{"--shard"}},
		{"bad max-failures", passThrough, good, []string{"--max-failures", "many"}, ExitUsage, "", []string{"--max-failures"}},
		{"bad compress", passThrough, good, []string{"--compress", "lz4"}, ExitUsage, "", []string{"--compress"}},
		{"flag after file", passThrough, good, []string{"-", "--shard", "0/2"}, ExitUsage, "", []string{"flags go before file names"}},
		{"invalid JSON", passThrough, "{\"id\":\"a\"}\n{oops\n{\"id\":\"c\"}\n", nil, ExitBadInput, "*", []string{"-:2:", "expected object key"}},
		{"missing id", passThrough, "{\"id\":\"a\"}\n\n{\"x\":1}\n", nil, ExitBadInput, "*", []string{"-:3:", `missing "id"`}},
		{"skip invalid", passThrough, "{\"id\":\"a\"}\n{oops\n{\"x\":1}\n{\"id\":\"c\"}\n", []string{"--skip-invalid"}, ExitOK, "{\"id\":\"a\"}\n{\"id\":\"c\"}\n", []string{"invalid_skipped=2"}},
		{"invalid content", rejectOdd, good, nil, ExitBadInput, "*", []string{`-:2: record "a1": ends in 1`}},
		{"invalid content skipped", rejectOdd, good, []string{"--skip-invalid"}, ExitOK, "{\"id\":\"a0\",\"n\":0}\n{\"id\":\"a2\",\"n\":2}\n", []string{"invalid_skipped=1"}},
		{"failures over the limit", failOdd, good, nil, ExitTooManyFail, "*", []string{"1 of 3 records failed"}},
		{"failures within the limit", failOdd, good, []string{"--max-failures", "1"}, ExitOK, "*", []string{"failed=1"}},
		{"failures within a percentage", failOdd, good, []string{"--max-failures", "50%"}, ExitOK, "*", nil},
		{"runtime error", func(r *Run) error { return errors.New("disk on fire") }, good, nil, ExitFailure, "", []string{"t: disk on fire"}},
		{"usage error from the action", func(r *Run) error { return Usagef("--x needs y") }, good, nil, ExitUsage, "", []string{"t: --x needs y"}},
		{"unsupported compression", passThrough, "BZh91AY&SY", nil, ExitBadInput, "", []string{"t: -: unsupported compression bzip2"}},
		{"missing file", passThrough, "", []string{"/nonexistent/in.jsonl"}, ExitBadInput, "", []string{"t: /nonexistent/in.jsonl: no such file or directory\n"}},
		{"shard", passThrough, good, []string{"--shard", "0/1"}, ExitOK, good, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runFilter(t, tt.action, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if tt.stdout != "*" && stdout != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			for _, s := range tt.stderrRe {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not contain %q:\n%s", s, stderr)
				}
			}
		})
	}
}

func TestFailedRecordsFlowOn(t *testing.T) {
	code, stdout, _ := runFilter(t, func(r *Run) error {
		return r.Map(func(rec *record.Record) error {
			return &record.Error{Kind: "bad", Message: "no"}
		})
	}, "{\"id\":\"a\",\"keep\":[1]}\n", "--max-failures", "inf")
	want := `{"id":"a","keep":[1],"error":{"stage":"t","kind":"bad","message":"no"}}` + "\n"
	if code != ExitOK || stdout != want {
		t.Errorf("exit %d, stdout %q; want 0 and %q", code, stdout, want)
	}
}

func TestShardFlagUnion(t *testing.T) {
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, "{\"id\":\"x%d\"}\n", i)
	}
	var all []string
	for i := range 4 {
		code, stdout, stderr := runFilter(t, func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }, in.String(), "--shard", fmt.Sprintf("%d/4", i))
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		all = append(all, strings.Fields(stdout)...)
	}
	want := strings.Fields(in.String())
	sort.Strings(all)
	sort.Strings(want)
	if strings.Join(all, "\n") != strings.Join(want, "\n") {
		t.Errorf("union of 4 shards has %d lines, want exactly the %d input lines once each", len(all), len(want))
	}
}

func TestVersionAndHelp(t *testing.T) {
	code, stdout, _ := runFilter(t, nil, "", "--version")
	if code != 0 || stdout != "t version "+Version+"\n" {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runFilter(t, nil, "", "--help")
	for _, s := range []string{"t < in.jsonl", "--shard", "--skip-invalid", "Exit codes"} {
		if code != 0 || !strings.Contains(stdout, s) {
			t.Errorf("--help (exit %d) lacks %q", code, s)
		}
	}
}

func TestOutputFileAndAutoCompression(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, out, compress string
		magic               []byte // nil for plain
	}{
		{"by extension zst", "o.jsonl.zst", "auto", []byte{0x28, 0xb5, 0x2f, 0xfd}},
		{"by extension gz", "o.jsonl.gz", "auto", []byte{0x1f, 0x8b}},
		{"plain extension", "o.jsonl", "auto", nil},
		{"flag beats extension", "p.jsonl", "zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.out)
			code, stdout, stderr := runFilter(t, func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }, "{\"id\":1}\n", "-o", path, "--compress", tt.compress)
			if code != 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.magic == nil && string(data) != "{\"id\":1}\n" || tt.magic != nil && !bytes.HasPrefix(data, tt.magic) {
				t.Errorf("%s starts with % x", tt.out, data[:min(len(data), 4)])
			}
			if _, err := os.Stat(path + ".partial"); !os.IsNotExist(err) {
				t.Errorf("partial file left behind")
			}
		})
	}
}

func TestExitFor(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitFailure},
		{Usagef("bad flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", Usagef("bad flag")), ExitUsage},
		{&stream.LineError{File: "f", Line: 2, Err: errors.New("bad")}, ExitBadInput},
		{fmt.Errorf("wrapped: %w", &stream.LineError{File: "f", Err: stream.ErrTruncated}), ExitBadInput},
		{errInterrupted{syscall.SIGINT}, 130},
		{errInterrupted{syscall.SIGTERM}, 143},
	}
	for _, tt := range tests {
		if got := exitFor(tt.err); got != tt.want {
			t.Errorf("exitFor(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// One writer per output: a second run with the same -o, started while the
// first holds it, exits 2 naming the first one's PID and leaves its output be.
func TestOneWriterPerOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "o.jsonl")
	var code2 int
	var stderr2 string
	code, _, stderr := runFilter(t, func(r *Run) error {
		code2, _, stderr2 = runFilter(t, func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }, "{\"id\":2}\n", "-o", path)
		return r.Map(func(*record.Record) error { return nil })
	}, "{\"id\":1}\n", "-o", path)
	if code != 0 {
		t.Fatalf("first writer: exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf("PID %d", os.Getpid()); code2 != ExitUsage || !strings.Contains(stderr2, want) {
		t.Errorf("second writer: exit %d, stderr %q; want exit 2 naming %s", code2, stderr2, want)
	}
	if data, _ := os.ReadFile(path); string(data) != "{\"id\":1}\n" {
		t.Errorf("output %q, want the first writer's record only", data)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the lock file is left behind: %v", err)
	}
}

// Off a terminal the progress line says how long is left, from the share of
// the input file read so far.
func TestProgressETA(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "{\"id\":%d,\"pad\":%q}\n", i+1000, strings.Repeat("x", 2000))
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	var status string
	code, _, stderr := runFilter(t, func(r *Run) error {
		return r.Map(func(rec *record.Record) error {
			if r.Written.Load() == 1000 {
				status = r.status()
			}
			return nil
		})
	}, "", "-o", filepath.Join(t.TempDir(), "o.jsonl"), in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(status, "ETA ") {
		t.Errorf("status halfway through a file: %q, want an ETA", status)
	}
}

// `-o F < F` would truncate the input it is about to read: refused (exit 2).
func TestOutputIsStdin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(path, []byte("{\"id\":1}\n"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	tool := Tool{Name: "t", Usage: "test filter", Description: "Example:\n  t < in.jsonl", Kind: Filter, Action: func(r *Run) error { return r.Map(func(*record.Record) error { return nil }) }}
	code := RunTool(tool, []string{"t", "-o", path}, Env{Stdin: f, Stdout: os.Stdout, Stderr: &stderr, Getenv: env(nil)})
	if code != ExitUsage || !strings.Contains(stderr.String(), "stdin") {
		t.Errorf("-o F < F: exit %d, %s; want exit 2 naming stdin", code, stderr.String())
	}
	if data, _ := os.ReadFile(path); string(data) != "{\"id\":1}\n" {
		t.Errorf("the input became %q", data)
	}
}

func TestDrawMode(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	file, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer file.Close()
	for _, tt := range []struct {
		mode progress.Mode
		out  *os.File
		want progress.Mode
	}{
		{progress.Auto, pw, progress.Never}, // an earlier stage of a pipeline
		{progress.Auto, file, progress.Auto},
		{progress.Always, pw, progress.Always},
		{progress.Never, file, progress.Never},
	} {
		if got := drawMode(tt.mode, tt.out); got != tt.want {
			t.Errorf("drawMode(%s, %s) = %s, want %s", tt.mode, tt.out.Name(), got, tt.want)
		}
	}
}
