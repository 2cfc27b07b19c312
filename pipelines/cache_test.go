package pipelines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/cost"
)

// simRequests reads llm-sim's /metrics: the completion requests it received.
func simRequests(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(url, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		var n int
		if _, err := fmt.Sscanf(line, "completion_requests %d", &n); err == nil {
			return n
		}
	}
	t.Fatalf("no completion_requests in /metrics:\n%s", b)
	return 0
}

// cacheMarks are the bytes by which a record answered from the cache
// differs from one paid for: where the reply (response) and the verdict
// (judgement.judge) came from. (split-subtasks writes the parent's response
// with its keys sorted, so they are cut one by one.)
var cacheMarks = regexp.MustCompile(`,"cached(_time|_run)?":(true|"[^"]*")`)

// uncached reads a stage's output (any compression) with the cache's marks
// cut out of each line, and counts them: what a run paid for and one the
// cache answered must agree byte for byte on everything else.
func uncached(t *testing.T, path string) ([]string, int) {
	t.Helper()
	out, err := exec.Command(Bin("split-subtasks"), "--compress", "none", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	marks := 0
	s := bufio.NewScanner(bytes.NewReader(out))
	s.Buffer(nil, 1<<26)
	for s.Scan() {
		marks += bytes.Count(s.Bytes(), []byte(`"cached":true`))
		lines = append(lines, cacheMarks.ReplaceAllString(s.Text(), ""))
	}
	return lines, marks
}

// TestPipelineCache: the LongGenBench pipeline (inference and an LLM judge)
// run twice with --cache into two output folders: the second sends no
// request (llm-sim's /metrics), its judged output is the first's byte for
// byte but for the marks that say the answers came from the cache, and its
// report says how many did.
func TestPipelineCache(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	dir := t.TempDir()
	first, second := t.TempDir(), t.TempDir()
	args := []string{"--count", "1", "--version", "short", "--cache", dir}
	RunScript(t, "longgenbench.sh", []string{"OPENAI_BASE_URL=" + url}, append(args, "--out", first)...)
	paid := simRequests(t, url)
	if paid == 0 {
		t.Fatal("the first run sent nothing")
	}
	RunScript(t, "longgenbench.sh", []string{"OPENAI_BASE_URL=" + url}, append(args, "--out", second)...)
	if n := simRequests(t, url) - paid; n != 0 {
		t.Fatalf("the second run sent %d requests", n)
	}
	a, marksA := uncached(t, filepath.Join(first, "judged.jsonl.zst"))
	b, marksB := uncached(t, filepath.Join(second, "judged.jsonl.zst"))
	if marksA != 0 || marksB != 2*len(b) || len(a) != len(b) {
		t.Fatalf("marks: first run %d, second %d, for %d and %d records (each of the second's has a cached reply and verdict)", marksA, marksB, len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("judged record %d differs:\n first  %s\n second %s", i, a[i], b[i])
		}
	}
	md, _ := os.ReadFile(filepath.Join(second, "report.md"))
	if want := fmt.Sprintf("Cache: 4 of 4 replies (response.cached) and %d of %d judge verdicts (judgement.judge.cached) came from the cache", len(b), len(b)); !bytes.Contains(md, []byte(want)) {
		t.Fatalf("report lacks %q:\n%s", want, md)
	}
	if md1, _ := os.ReadFile(filepath.Join(first, "report.md")); bytes.Contains(md1, []byte("Cache:")) {
		t.Fatalf("the first report says the cache answered:\n%s", md1)
	}
}

// TestJudgeCacheAcrossFolders: two judge runs of the same LongGenBench
// checks into two partitioned output folders share the cache: the second
// pays nothing, and both folders' manifests account for it.
func TestJudgeCacheAcrossFolders(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	out := t.TempDir()
	RunScript(t, "longgenbench.sh", []string{"OPENAI_BASE_URL=" + url}, "--count", "1", "--scenarios", "menu", "--judge", "lexical", "--out", out)
	dir := t.TempDir()
	checks := filepath.Join(out, "checks.jsonl.zst")
	var paid int64
	for i, folder := range []string{t.TempDir() + "/a/", t.TempDir() + "/b/"} {
		before := simRequests(t, url)
		cmd := exec.Command(Bin("judge"), "--judge-base-url", url, "-j", "4", "--cache", dir, "-o", folder, "--partition-by", "bench", checks)
		cmd.Env = Env()
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("judge: %v\n%s", err, b)
		}
		sent := simRequests(t, url) - before
		if (i == 0) != (sent > 0) {
			t.Fatalf("judge run %d sent %d requests", i+1, sent)
		}
		b, err := os.ReadFile(filepath.Join(folder, "_manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Usage cost.Account }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			paid = int64(sent)
		}
		if a := m.Usage.Answers; a != (cost.Answers{Paid: int64(sent), Cache: paid - int64(sent)}) {
			t.Fatalf("run %d sent %d; its manifest's usage: %s", i+1, sent, b)
		}
	}
}
