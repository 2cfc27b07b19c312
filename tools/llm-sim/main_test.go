package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The test binary doubles as llm-sim when this variable is set, so the tests
// run the real main (flags, first line, signals) without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("LLM_SIM_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LLM_SIM_TEST_MAIN=1")
	return cmd
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestServesAndStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := command("--addr", "127.0.0.1:0", "--model", "a", "--model", "b=0.5", "--skill", "0.8", "--faults", "429", "--fail-rate", "0")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			first, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("no first line: %v; stderr: %s", err, stderr.String())
			}
			url := strings.TrimSpace(first)
			if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
				cmd.Process.Kill()
				t.Fatalf("first line %q is not a loopback base URL", first)
			}
			resp, err := http.Get(url + "/models")
			if err != nil {
				cmd.Process.Kill()
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), `"id":"a"`) || !strings.Contains(string(body), `"id":"b"`) || strings.Contains(string(body), `"id":"llm-sim"`) {
				t.Errorf("models: %s", body)
			}
			cmd.Process.Signal(sig)
			if code := exitCode(cmd.Wait()); code != 0 {
				t.Fatalf("exit %d after %s; stderr: %s", code, sig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "stopped") {
				t.Errorf("no closing log line: %s", stderr.String())
			}
		})
	}
}

func TestUsageErrorsAndHelp(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // in stdout+stderr
	}{
		{[]string{"--help"}, 0, "TEST DOUBLE"},
		{[]string{"--version"}, 0, "llm-sim version"},
		{[]string{"--skill", "2"}, 2, "--skill"},
		{[]string{"--faults", "418"}, 2, "--faults"},
		{[]string{"--model", "a=high"}, 2, "--model"},
		{[]string{"--no-such-flag"}, 2, "no-such-flag"},
		{[]string{"--addr", "256.1.1.1:0"}, 1, "256.1.1.1"},
		{[]string{"--max-model-len", "8"}, 2, "--max-model-len 8"},
		{[]string{"--overflow", "cut"}, 2, "--overflow"},
		{[]string{"--profile", "sglang"}, 2, "--profile"},
		{[]string{"--help"}, 0, "--profile SERVER"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := command(tc.args...).CombinedOutput()
			if code := exitCode(err); code != tc.code || !strings.Contains(string(out), tc.want) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s", code, tc.code, tc.want, out)
			}
		})
	}
}
