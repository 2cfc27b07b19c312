package pipelines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	stats := filepath.Join(t.TempDir(), "stats.json")
	cmd := exec.Command(Bin("judge"), "--judge-base-url", url, "-j", "4", "--resume", "--stats", stats, "-o", resumeOut, checks)
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
	if st.Records.Resumed != half || st.Requests.Sent != len(all)-half {
		t.Errorf("resume copied %d and sent %d; want %d and %d", st.Records.Resumed, st.Requests.Sent, half, len(all)-half)
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
