package pipelines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/ifkit/ifkit/lib/stream"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reportRows reads a tidy report (aggregate-ifs --format jsonl).
func reportRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func metric(t *testing.T, rows []map[string]any, name string) map[string]any {
	t.Helper()
	for _, r := range rows {
		if r["metric"] == name {
			return r
		}
	}
	t.Fatalf("no %s row", name)
	return nil
}

// jsonlIDs returns the ids of a file of split children (zstd or plain) in
// order; split-subtasks passes children through unchanged, so it reads them.
func jsonlIDs(t *testing.T, file string) []string {
	t.Helper()
	out, err := exec.Command(Bin("split-subtasks"), "--compress", "none", file).Output()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	s := bufio.NewScanner(bytes.NewReader(out))
	s.Buffer(nil, 1<<24)
	for s.Scan() {
		var r struct{ ID string }
		if err := json.Unmarshal(s.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// resumeJudge runs judge with args (which include --resume) and returns how
// many records its --stats says were copied from the earlier output and how
// many requests it sent.
func resumeJudge(t *testing.T, args ...string) (resumed, sent int) {
	t.Helper()
	stats := filepath.Join(t.TempDir(), "stats.json")
	cmd := exec.Command(Bin("judge"), append([]string{"--stats", stats}, args...)...)
	cmd.Env = Env()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("judge --resume: %v\n%s", err, b)
	}
	var st struct {
		Requests struct{ Sent int }
		Records  struct{ Resumed int }
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st.Records.Resumed, st.Requests.Sent
}

// At skill 1 the simulated model writes every entry with every event, and
// the simulated judge sees each: CR and STIC-2 are 100 %.
func TestLongGenBenchPipeline(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	out := t.TempDir()
	RunScript(t, "longgenbench.sh", []string{"OPENAI_BASE_URL=" + url}, "--count", "1", "--version", "short", "--out", out)
	rows := reportRows(t, filepath.Join(out, "report.jsonl"))
	for _, m := range []string{"CR", "STIC-1", "STIC-2", "wAvg"} {
		r := metric(t, rows, m)
		if r["value"] != 100.0 || r["model"] != "llm-sim" || r["version"] != "short" || r["judge"] != "llm (llm-sim)" {
			t.Errorf("%s: %v", m, r)
		}
	}
	if r := metric(t, rows, "CR"); r["n"] != 4.0 {
		t.Errorf("CR over %v records, want 4 (one per scenario)", r["n"])
	}

	// The offline judge is labelled as such in the report.
	lex := t.TempDir()
	RunScript(t, "longgenbench.sh", []string{"OPENAI_BASE_URL=" + url}, "--count", "1", "--scenarios", "skyscraper", "--judge", "lexical", "--out", lex)
	if r := metric(t, reportRows(t, filepath.Join(lex, "report.jsonl")), "STIC-2"); r["value"] != 100.0 || !strings.HasPrefix(r["judge"].(string), "lexical") {
		t.Errorf("lexical: %v", r)
	}
	md, _ := os.ReadFile(filepath.Join(lex, "report.md"))
	if !bytes.Contains(md, []byte("offline approximation")) {
		t.Errorf("the lexical report does not say it is an approximation:\n%s", md)
	}

	// Resume: a judge run killed half way left judged.jsonl.partial; the next
	// run with --resume judges only the rest.
	checks := filepath.Join(out, "checks.jsonl.zst")
	all := jsonlIDs(t, checks)
	judged := jsonlIDs(t, filepath.Join(out, "judged.jsonl.zst"))
	half := len(judged) / 2
	// split-subtasks passes judged children through unchanged and decompresses them.
	first, err := exec.Command(Bin("split-subtasks"), "--compress", "none", filepath.Join(out, "judged.jsonl.zst")).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(first, []byte("\n"))
	resumeOut := filepath.Join(t.TempDir(), "judged.jsonl")
	if err := os.WriteFile(resumeOut+".partial", bytes.Join(lines[:half], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	resumed, sent := resumeJudge(t, "--judge-base-url", url, "-j", "4", "--resume", "-o", resumeOut, checks)
	if resumed != half || sent != len(all)-half {
		t.Errorf("resume copied %d and sent %d; want %d and %d", resumed, sent, half, len(all)-half)
	}
	got := jsonlIDs(t, resumeOut)
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("%s judged twice", id)
		}
		seen[id] = true
	}
	if len(got) != len(all) {
		t.Errorf("resumed output has %d records, want %d", len(got), len(all))
	}
}

// The resilience test: kill -9 the judge stage part way, then run it
// again with --resume: the checks judged before the kill are copied, only
// the rest are sent, and every check comes out exactly once.
func TestLongGenBenchJudgeKillResume(t *testing.T) {
	out := t.TempDir()
	RunScript(t, "longgenbench.sh", []string{"OPENAI_BASE_URL=" + StartSim(t, "--skill", "1")},
		"--count", "1", "--scenarios", "skyscraper", "--judge", "lexical", "--out", out)
	checks := filepath.Join(out, "checks.jsonl.zst")
	all := jsonlIDs(t, checks)

	// A slow judge, so the kill lands while checks are still in flight.
	judgeURL := StartSim(t, "--skill", "1", "--latency", "40ms")
	judged := filepath.Join(out, "judged-llm.jsonl.zst")
	args := []string{"--judge-base-url", judgeURL, "-j", "2", "--resume", "-o", judged, checks}
	journal := judged + ".partial.journal"
	cmd := exec.Command(Bin("judge"), args...)
	cmd.Env = Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answered := func() int { // the journal is zstd, flushed per record: count what reads back
		in, err := stream.Open(journal, nil)
		if err != nil {
			return 0
		}
		defer in.Close()
		n := 0
		for {
			if _, _, err := in.Next(); err != nil {
				return n
			}
			n++
		}
	}
	for deadline := time.Now().Add(60 * time.Second); answered() < 5; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the judge answered %d checks in a minute; stderr:\n%s", answered(), stderr.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := answered()
	if before >= len(all) {
		t.Fatalf("the judge finished all %d checks before the kill: nothing left to resume", len(all))
	}

	resumed, sent := resumeJudge(t, args...)
	if resumed < before || resumed+sent != len(all) {
		t.Errorf("after %d checks were judged and the judge was killed, resume copied %d and sent %d; want at least %d copied and %d in all",
			before, resumed, sent, before, len(all))
	}
	got := jsonlIDs(t, judged)
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for _, id := range all {
		if seen[id] != 1 {
			t.Errorf("check %s appears %d times after resume", id, seen[id])
		}
	}
	if len(got) != len(all) {
		t.Errorf("resumed output has %d records, want %d", len(got), len(all))
	}
}

// The generator's flags would be silently ignored next to --official (the
// official records are imported unchanged), so they are a usage error.
func TestLongGenBenchOfficialRejectsGeneratorFlags(t *testing.T) {
	var stderr bytes.Buffer
	cmd := exec.Command(Bin("gen-context"), "longgenbench", "--official", "Dataset_short.json", "--count", "3")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || len(out) > 0 || !strings.Contains(stderr.String(), "--count does not apply to --official") {
		t.Errorf("gen-context longgenbench --official F --count 3: %v, stdout %q, stderr %q; want exit 2 and a clear message", err, out, stderr.String())
	}
}
