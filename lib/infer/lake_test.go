package infer

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/testbin"
)

// writeBenchInput writes n chat requests with ids r00000, … and a "bench"
// field to partition by, one value for each block of records in a row.
func writeBenchInput(t *testing.T, n, block int) string {
	t.Helper()
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"id":"r%05d","bench":"b%02d","request":{"messages":[{"role":"user","content":"question number %d"}],"max_tokens":8}}`+"\n", i, i/block, i)
	}
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readLake reads a complete partitioned folder as a reader does (lake.Check).
func readLake(t *testing.T, dir string) []*record.Record {
	t.Helper()
	_, parts, _, err := lake.Check(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record.Record
	for _, p := range parts {
		recs = append(recs, readRecords(t, p.File)...)
	}
	return recs
}

// A partitioned run (-o DIR/ --partition-by) killed with kill -9, resumed
// and stopped by SIGTERM, then resumed again, ends with every id once in
// the folder and at most -j answers paid twice: the kill's. There are more
// partitions than lake.MaxOpen, so some partitions' records wait in memory
// for a part (lake.HoldLimit), which the kill loses (the journal keeps
// their answers) and SIGTERM writes to hidden parts. The same for
// infer-batch and for a judge.
func TestPartitionedRunResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kill -9 and SIGTERM trials (make test runs them)")
	}
	for _, tool := range []struct {
		mode, prefix, field string
		tool                app.Tool
	}{
		{"1", "", "response", batchTool},
		{"judge", "judge-", "judgement", judgeTool(new(Options), nil)},
	} {
		t.Run(tool.tool.Name, func(t *testing.T) {
			const n, j = 3000, 8
			opt := sim.DefaultOptions()
			opt.Latency = 3 * time.Millisecond
			s := startSim(t, opt)
			in := writeBenchInput(t, n, n/(lake.MaxOpen+4))
			dir := filepath.Join(t.TempDir(), "lake") + "/"
			sent := func() int64 { return s.Stats().ByPath["/v1/chat/completions"] }
			flags := []string{"--" + tool.prefix + "base-url", s.BaseURL(), "--" + tool.prefix + "model", sim.DefaultModel, "-j", fmt.Sprint(j)}
			args := append(slices.Clone(flags), "--resume", "--partition-by", "bench", "-o", dir, in)
			run := func(args ...string) (int, string) {
				code, _, stderr := runTool(t, tool.tool, nil, args...)
				return code, stderr
			}
			// answered checks the folder: every id once, each answered.
			answered := func(recs []*record.Record) {
				t.Helper()
				seen := map[string]bool{}
				for _, r := range recs {
					if seen[r.ID()] || !r.Has(tool.field) || r.Has("error") || !r.Has("request") || r.String("bench") == "" {
						t.Fatalf("record %s twice or not whole: %s", r.ID(), r.AppendJSON(nil))
					}
					seen[r.ID()] = true
				}
				if len(seen) != n {
					t.Fatalf("%d records, want %d", len(seen), n)
				}
			}

			cmd, stderr := childTool(t, tool.mode, args...)
			waitFor(t, "a third of the requests", func() bool { return sent() >= n/3 })
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if b, err := os.ReadFile(journalName(filepath.Join(dir, "_run"))); err != nil || len(b) == 0 {
				t.Fatalf("the killed run left no journal (%v); stderr %s", err, stderr)
			}
			// Without --resume the unfinished folder is refused, naming the way on.
			noResume := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--resume" })
			if code, errText := run(noResume...); code != 2 || !strings.Contains(errText, "--resume continues it") {
				t.Fatalf("a rerun without --resume: exit %d: %s", code, errText)
			}

			killed := sent()
			cmd, stderr = childTool(t, tool.mode, args...)
			waitFor(t, "two thirds of the requests", func() bool { return sent() >= killed+n/3 })
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err == nil {
				t.Fatalf("finished before SIGTERM: %s", stderr)
			} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
				t.Fatalf("exit after SIGTERM: %v; stderr %s", err, stderr)
			}
			if m, err := lake.ReadManifest(dir); err != nil || m.Complete {
				t.Fatalf("after SIGTERM the manifest says complete or is missing: %v", err)
			}

			if code, errText := run(args...); code != 0 {
				t.Fatalf("resume: exit %d: %s", code, errText)
			}
			answered(readLake(t, dir))
			if total := sent(); total > n+j {
				t.Fatalf("%d requests for %d records and one kill at -j %d", total, n, j)
			} else {
				t.Logf("%d requests for %d records (a kill -9 and a SIGTERM, -j %d)", total, n, j)
			}
			for _, left := range []string{"_earlier", "_run.partial*"} {
				if m, _ := filepath.Glob(filepath.Join(dir, left)); len(m) > 0 {
					t.Fatalf("left behind: %v", m)
				}
			}

			// A complete folder: --resume keeps it, paying nothing.
			before := sent()
			if code, errText := run(args...); code != 0 || sent() != before {
				t.Fatalf("--resume of a complete folder: exit %d, %d requests: %s", code, sent()-before, errText)
			}
			answered(readLake(t, dir))

			// --resume-from DIR/ reads the folder's answers into another output.
			out := filepath.Join(t.TempDir(), "out.jsonl")
			if code, errText := run(append(flags, "--resume-from", dir, "-o", out, in)...); code != 0 || sent() != before {
				t.Fatalf("--resume-from DIR/: exit %d, %d requests: %s", code, sent()-before, errText)
			}
			answered(readRecords(t, out))
			if left, _ := filepath.Glob(stream.PartialName(out) + "*"); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// --resume-from a folder that holds no run's records is a usage error, not
// a warning followed by sending everything again.
func TestResumeFromOtherFolder(t *testing.T) {
	code, _, stderr := runBatch(t, nil, "--base-url", testbin.RefusedURL(t), "--model", "m", "--resume-from", t.TempDir(), writeInput(t, 2, 4))
	if code != 2 || !strings.Contains(stderr, "--resume-from") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
