// Package pipelines runs the benchmark pipelines end to end: the programs,
// the bash scripts in this folder, and llm-sim on 127.0.0.1.
package pipelines

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/testprograms"
)

func TestMain(m *testing.M) { testprograms.Main(m) }

// Bin is the path of one program under test.
func Bin(name string) string { return filepath.Join(testbin.Dir, name) }

// Env is the environment for pipeline scripts: the programs under test
// (IFKIT_BIN, which pipelines/lib.sh puts first) rather than a checkout's bin/
// from an earlier build.
func Env(extra ...string) []string {
	env := append(os.Environ(), "PATH="+testbin.Dir+string(os.PathListSeparator)+os.Getenv("PATH"), "IFKIT_BIN="+testbin.Dir)
	return append(env, extra...)
}

// StartSim starts llm-sim on 127.0.0.1 (testbin.StartSim).
func StartSim(t *testing.T, args ...string) string {
	t.Helper()
	return testbin.StartSim(t, args...)
}

// RunScript runs pipelines/<name> with bash and the given extra environment,
// failing the test with its output when it exits non-zero.
func RunScript(t *testing.T, name string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{name}, args...)...)
	cmd.Env = Env(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// runIDs matches a run id where a report names one: a metric row's "run",
// a cell of report.md's provenance table. A run id hashes its inputs'
// bytes, which two runs of one script differ in (latencies), so reports are
// compared with them blanked.
var runIDs = regexp.MustCompile(`"run":"[0-9a-f]*"|\| [0-9a-f]{16} \|`)

// WithoutRunIDs is a report with its run ids blanked.
func WithoutRunIDs(b []byte) []byte { return runIDs.ReplaceAll(b, nil) }

// shortParallel lets the longest tests of the package run beside each other
// under -short, which keeps `make check` under a minute on two cores (they
// wait on events, and share no ports, folders or environment). The full
// suite runs them one at a time, as the other tests.
func shortParallel(t *testing.T) {
	if testing.Short() {
		t.Parallel()
	}
}
