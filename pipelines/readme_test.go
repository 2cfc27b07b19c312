package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlocks returns the code blocks of the README section that starts
// with heading, in order.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var blocks []string
	for {
		_, rest, ok := strings.Cut(sec, "```\n")
		if !ok {
			return blocks
		}
		block, after, ok := strings.Cut(rest, "```")
		if !ok {
			t.Fatalf("README.md %q: unterminated code block", heading)
		}
		blocks, sec = append(blocks, block), after
	}
}

// A new user follows the README's real-endpoint section word for word from
// a fresh checkout with a clean PATH. Two llm-sim servers play the model's
// and the judge's vLLM, serving the models the README names; the only
// change is the one a user makes: their servers' base URLs in place of the
// README's gpu01 and gpu02.
func TestReadmeRealEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs all five benchmarks at their full default size; not with -short")
	}
	blocks := readmeBlocks(t, "## Running a benchmark against a real endpoint")
	if len(blocks) != 3 {
		t.Fatalf("%d code blocks in the README's real-endpoint section, want 3 (serve, scripts, pipeline)", len(blocks))
	}
	serve := regexp.MustCompile(`(?m)^vllm serve (\S+)`).FindStringSubmatch(blocks[0])
	judge := regexp.MustCompile(`--judge-model (\S+)`).FindStringSubmatch(blocks[1])
	if serve == nil || judge == nil {
		t.Fatalf("the README names no served model (vllm serve M) or no --judge-model:\n%s", strings.Join(blocks, "\n"))
	}
	urls := map[string]string{
		"http://gpu01:8000/v1": StartSim(t, "--model", serve[1], "--seed", "1"),
		"http://gpu02:8000/v1": StartSim(t, "--model", judge[1], "--seed", "2"),
	}
	script := strings.Join(blocks, "\n")
	// The server is llm-sim, started above; the rest runs as written.
	script = regexp.MustCompile(`(?m)^vllm serve .*\n`).ReplaceAllString(script, "")
	for readme, sim := range urls {
		if !strings.Contains(script, readme) {
			t.Fatalf("the README's section no longer uses %s: update this test's substitution", readme)
		}
		script = strings.ReplaceAll(script, readme, sim)
	}

	co := checkout(t, t.TempDir())
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = co
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + co}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's real-endpoint section: %v\n%s", err, tail(out, 4000))
	}
	for _, bench := range []string{"lifbench", "ifscale", "longins", "longgenbench", "eifbench"} {
		report, err := os.ReadFile(filepath.Join(co, "out", bench, "report.md"))
		if err != nil {
			t.Errorf("%s: %v", bench, err)
			continue
		}
		for _, want := range []string{serve[1], "Items: ", "These replies came from llm-sim"} {
			if !strings.Contains(string(report), want) {
				t.Errorf("out/%s/report.md lacks %q", bench, want)
			}
		}
	}
	if !strings.Contains(string(out), "LIFBench ARS by length") {
		t.Errorf("the composed pipeline printed no LIFBench report:\n%s", tail(out, 4000))
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
