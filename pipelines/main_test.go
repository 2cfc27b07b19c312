// Package pipelines runs the benchmark pipelines end to end: the programs,
// the bash scripts in this folder, and llm-sim on 127.0.0.1.
package pipelines

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// StartSim starts llm-sim on 127.0.0.1 with a free port and returns its base
// URL; it is stopped when the test ends.
func StartSim(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(Bin("llm-sim"), append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		if s.Scan() {
			line <- strings.TrimSpace(s.Text())
		}
		close(line)
	}()
	select {
	case url, ok := <-line:
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("llm-sim did not print its base URL (got %q); stderr:\n%s", url, stderr.String())
		}
		return url
	case <-time.After(20 * time.Second):
		t.Fatalf("llm-sim did not start; stderr:\n%s", stderr.String())
	}
	return ""
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
