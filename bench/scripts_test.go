// Package bench_test runs every benchmark script at a tiny size, so a change
// of the programs' behaviour breaks this test rather than the next
// measurement (issue 27). It checks that each script runs and that its
// programs did the work; the timings mean nothing at this size.
package bench_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/testprograms"
)

func TestMain(m *testing.M) { testprograms.Main(m) }

func TestScriptsAtTinySize(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the benchmark scripts build their programs and run them all")
	}
	for _, tool := range []string{"zstd", "jq", "curl", "bc", "/usr/bin/time"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the benchmark scripts need %s (apt-get install zstd jq curl bc time)", tool)
		}
	}
	// bench/run.sh runs them all one after the other; the passthrough corpus
	// (1 MiB here) and its results go to a temporary folder.
	cmd := exec.Command("bash", "-c", "bench/passthrough/run.sh 1 && bench/run.sh infer lifbench ifscale longins batch cache stats explorer")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "PATH="+testbin.Dir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DATA="+t.TempDir(), "REPEAT=1", "RUNS=1",
		"N=200", "CURL_N=50", "CPU_N=200", "BIG_N=8", "BIG_KB=20", // infer
		"LIFBENCH_LENGTHS=1k",        // lifbench
		"DENSITIES=10,20", "SEEDS=0", // ifscale
		"TASKS=20", "INSTANCES=10", "LONGINS_LENGTHS=256", // longins
		"LONG_N=16", "SHORT_N=200", "PREFIX_LENGTHS=1k", "BATCH_LENGTHS=1k", "BASE=", // batch
		"CACHE_LENGTHS=1k",       // cache
		"STUDY_RUNS=0",           // stats: its study is TestIntervalStudy's
		"COPIES=1", "BROWSER=no", // explorer (LIFBENCH_LENGTHS above)
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the benchmark scripts failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"addfield vs jq pipeline: ",
		"| saturation | infer-batch -j 256 | 200 records |", "| 200 ok |",
		"| cpu | infer-batch -j 64 | 200 requests |",
		"| rss | infer-batch -j 64, 8 × 20 KB prompts |", "| 8 ok |",
		"prompts: 467,", "best: gen+expand ",
		"replies: 2,", "for 2 replies",
		"modes gist: written=20 exams",
		"| long | infer-batch | 16 × 455 KB |", "| 16 ok |",
		"| short | infer-batch -j 256 | 200 records |",
		"| prefix | lif.jsonl: outputs of both orders identical", "| prefix | lif.shuf.jsonl: outputs of both orders identical",
		"records identical to online: yes",
		"| second | 0 |", "Cache: ",
		"| two-models | aggregate-ifs --html --html-contexts auto |", "note: The 3 distinct contexts are kept as excerpts only (--html-contexts excerpts).",
		"| larger | aggregate-ifs --html --html-contexts auto |",
		"| lifbench | (intervals) |", "| ifscale | --compare sim-a |", "rows with an interval: ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if left, _ := filepath.Glob(filepath.Join("..", "bench", "data", "passthrough-1m-*")); len(left) > 0 {
		t.Errorf("the passthrough corpus went to bench/data, not DATA: %v", left)
	}
}

// A program whose stderr a benchmark script sets aside (logged) says why
// it failed, also as a stage of a pipeline, and the script ends there
// naming its line; a program that succeeds keeps its stderr out of the
// output, and a stage that only lost its reader is not blamed.
func TestLoggedSaysWhy(t *testing.T) {
	script := `set -euo pipefail
work=$(mktemp -d)
. bench/sim.sh
logged "$work/ok.err" sh -c 'echo noise >&2; echo data' | logged "$work/b.err" sh -c 'cat >/dev/null; echo "the reason" >&2; exit 3'
echo not reached`
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want 3\n%s", err, out)
	}
	for _, want := range []string{"bench: failed (exit 3): sh -c cat >/dev/null;", "\n  the reason\n", "bench: bash:4: failed (exit 3)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"noise", "not reached", "exit 141"} {
		if strings.Contains(string(out), not) {
			t.Errorf("the output has %q:\n%s", not, out)
		}
	}
}
