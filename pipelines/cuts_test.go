package pipelines

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// A metric row counts its n_truncated among what its n counts (issue 30:
// LIFBench's IFS rows said n 6, n_truncated 467): on every benchmark run
// against a server that cut some of its prompts, no row has more cut items
// than items, and some rows have cut ones.
func TestTruncatedRowsWithinN(t *testing.T) {
	for _, c := range []struct {
		bench, gen, ctx, judge string
	}{
		{"lifbench", "gen-context lifbench --lengths 4k", "2048", "judge"},
		{"ifscale", "gen-context ifscale --densities 10,100,300 --seeds 0,1", "1200", "judge"},
		{"longins", "gen-context longins --lengths 256,1024", "700", "judge"},
		{"longgenbench", "gen-context longgenbench --count 2 --scenarios menu", "200", "split-subtasks | judge --judge lexical"},
		{"eifbench", "gen-context eifbench", "900", "split-subtasks | judge --judge-base-url $URL -j 8"},
	} {
		t.Run(c.bench, func(t *testing.T) {
			url := StartSim(t, "--max-model-len", c.ctx, "--overflow", "truncate")
			judge := strings.ReplaceAll(c.judge, "$URL", url)
			out, stderr, code := sh(t, c.gen+" | expand-templates | infer-batch -j 8 --base-url "+url+" | "+judge+" | aggregate-ifs --format jsonl")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			cut := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					Metric     string            `json:"metric"`
					N          int               `json:"n"`
					NTruncated int               `json:"n_truncated"`
					Dims       map[string]string `json:"-"`
				}
				if err := record.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				if r.NTruncated > r.N {
					t.Errorf("n_truncated %d > n %d: %s", r.NTruncated, r.N, line)
				}
				cut += r.NTruncated
			}
			if cut == 0 {
				t.Errorf("no row counts a cut item: the server cut nothing, the test shows nothing:\n%s", stderr)
			}
		})
	}
}

// readAll reads an output of any compression into its records.
func readAll(t *testing.T, path string) []*record.Record {
	t.Helper()
	in, err := stream.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out []*record.Record
	for {
		line, _, err := in.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		rec, err := record.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.Clone())
	}
}

// longinsAgainstOllama runs pipelines/longins.sh (default flags, plus
// INFER_ARGS) against llm-sim's Ollama profile with a context between the
// two exam lengths, and checks the records against the truth: the same
// requests sent to the same server without a context give each prompt's
// whole count. Every record the server cut (its prompt longer than the
// context, or its reply running past the room left, which Ollama shifts its
// context for) is flagged, no other one is, and the report counts them per
// mode; cut_check is what the records were checked with.
func longinsAgainstOllama(t *testing.T, simArgs []string, inferArgs string, ctx int, check string) (stderr string) {
	t.Helper()
	url := StartSim(t, append([]string{"--profile", "ollama", "--max-model-len", strconv.Itoa(ctx)}, simArgs...)...)
	out := t.TempDir()
	cmd := exec.Command("bash", "longins.sh", "--lengths", "1024,2048", "--out", out)
	cmd.Env = Env("OPENAI_BASE_URL="+url, "INFER_ARGS="+inferArgs)
	var errb strings.Builder
	cmd.Stderr = &errb
	report, err := cmd.Output()
	if err != nil {
		t.Fatalf("longins.sh: %v\n%s", err, errb.String())
	}
	unlimited := StartSim(t, append([]string{"--profile", "ollama"}, simArgs...)...)
	truthFile := filepath.Join(out, "truth.jsonl")
	if _, stderr, code := sh(t, "infer-batch -j 8 --base-url "+unlimited+" -o "+truthFile+" "+filepath.Join(out, "requests.jsonl.zst")); code != 0 {
		t.Fatalf("the uncut run: exit %d: %s", code, stderr)
	}
	whole := map[string]int{} // each prompt's count, uncut
	for _, r := range readAll(t, truthFile) {
		whole[r.ID()] = response(t, r).Usage.PromptTokens
	}
	cutByMode := map[string]int{}
	cut, kept := 0, 0
	for _, r := range readAll(t, filepath.Join(out, "responses.jsonl.zst")) {
		resp := response(t, r)
		truth := whole[r.ID()] > ctx || whole[r.ID()]+resp.Usage.CompletionTokens > ctx
		if resp.ServerTruncated != truth {
			t.Errorf("%s: server_truncated %v, but the prompt has %d tokens for a %d context (server counted %d, reply %d; ifkit sent %d by %s)",
				r.ID(), resp.ServerTruncated, whole[r.ID()], ctx, resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.PromptTokensSent, resp.Tokenizer)
		}
		if resp.CutCheck != check && !resp.ServerTruncated {
			t.Errorf("%s: cut_check %q, want %q", r.ID(), resp.CutCheck, check)
		}
		if truth {
			cut++
			var g struct{ Mode string }
			r.Decode("group", &g)
			cutByMode[g.Mode]++
		} else {
			kept++
		}
	}
	if cut == 0 || kept == 0 {
		t.Fatalf("%d prompts cut, %d kept: the context is not between the lengths, the test shows nothing", cut, kept)
	}
	for mode, n := range cutByMode {
		title := "LongIns " + strings.ToUpper(mode) + ": F1"
		i := strings.Index(string(report), title)
		if i < 0 {
			t.Fatalf("no %s table:\n%s", title, report)
		}
		table := string(report[i:])
		if j := strings.Index(table[1:], "### "); j > 0 {
			table = table[:j]
		}
		if !strings.Contains(table, fmt.Sprintf("Server-truncated: %d of 22 records", n)) {
			t.Errorf("the %s table does not count its %d cut records:\n%s", mode, n, table)
		}
	}
	if check == "exact" && strings.Contains(string(report), "cuts not checked") {
		t.Errorf("the report says cuts were not checked:\n%s", report)
	}
	for _, row := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		if row["n_truncated"].(float64) > row["n"].(float64) {
			t.Errorf("row %v: n_truncated > n", row)
		}
	}
	return errb.String()
}

// Issue 30: LongIns exams of 1,024 and 2,048 tokens against Ollama with a
// 1,900-token context. With default flags (the o200k_base estimate), every
// cut record is flagged (Ollama's count is exactly its context, which it
// reports in /api/ps) and no other one; each mode's table counts its own.
func TestLongInsOllamaCutsFlagged(t *testing.T) {
	longinsAgainstOllama(t, nil, "", 1900, "exact")
}

// The same with the model's tokenizer.json, counted as the server counts.
func TestLongInsOllamaCutsFlaggedTokenizerFile(t *testing.T) {
	tok, err := filepath.Abs("../lib/tokens/testdata/tiny-sentencepiece.json")
	if err != nil {
		t.Fatal(err)
	}
	longinsAgainstOllama(t, []string{"--tokenizer", tok}, "--tokenizer "+tok, 5000, "exact")
}

// A model whose tokenizer counts half again o200k_base's tokens: the
// estimate is calibrated against the server's counts (the summary says by
// how much), and every cut is still flagged.
func TestLongInsOllamaCutsFlaggedScaledCount(t *testing.T) {
	stderr := longinsAgainstOllama(t, []string{"--token-scale", "1.5"}, "", 2900, "exact")
	m := regexp.MustCompile(`o200k_base~ calibrated on \d+ replies: the server counts ([0-9.]+)×`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no calibration in the summary:\n%s", stderr)
	}
	if r, _ := strconv.ParseFloat(m[1], 64); r < 1.3 || r > 1.7 {
		t.Errorf("calibrated ratio %v, want about 1.5", r)
	}
}

// A server that reports no usage: nothing can be checked, and the report
// says "cuts not checked" in every table, row and caption, never "0 cut".
func TestNoUsageReportsCutsNotChecked(t *testing.T) {
	url := StartSim(t, "--no-usage")
	out := t.TempDir()
	cmd := exec.Command("bash", "longins.sh", "--lengths", "256", "--modes", "gist", "--out", out)
	cmd.Env = Env("OPENAI_BASE_URL=" + url)
	var errb strings.Builder
	cmd.Stderr = &errb
	report, err := cmd.Output()
	if err != nil {
		t.Fatalf("longins.sh: %v\n%s", err, errb.String())
	}
	if !strings.Contains(string(report), "Server-truncated: cuts not checked on 11 of 11 records") || !strings.Contains(errb.String(), "the server reported no usage") {
		t.Errorf("report:\n%s\nstderr:\n%s", report, errb.String())
	}
	for _, row := range reportRows(t, filepath.Join(out, "report.jsonl")) {
		if row["cut_check"] != "cuts not checked" {
			t.Errorf("row %v", row)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(html), "cuts not checked") || strings.Contains(string(html), "0 cut by the server") {
		t.Errorf("the HTML report does not say the cuts were not checked")
	}
}
