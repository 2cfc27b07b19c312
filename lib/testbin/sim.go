package testbin

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// StartSim starts the llm-sim under test (Dir) on 127.0.0.1 with a free port and
// returns its base URL; it is stopped when the test ends.
func StartSim(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(Dir, "llm-sim"), append([]string{"--addr", "127.0.0.1:0"}, args...)...)
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
