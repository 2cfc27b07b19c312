package judge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
)

// Without a judge model the engine flags do nothing, and the run says so;
// records decided without a call are judged all the same.
func TestActionWarnsAboutIdleEngineFlags(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"c","bench":"echo","text":"decided"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lexical := []Judged{{"Echo", []string{ModeLLM, ModeLexical}, nil, "echo"}}
	tool := app.Tool{Name: "judge", Flags: Flags(lexical), Action: Action(map[string]Factory{"echo": func(Options) (Scorer, error) { return echoScorer{}, nil }}, lexical)}
	for _, tc := range []struct {
		args []string
		warn string // "" = no warning
	}{
		{[]string{"--judge", "lexical", "--resume", "-j", "4", "-o", filepath.Join(t.TempDir(), "out.jsonl")}, "--concurrency --resume"},
		{[]string{"--judge", "lexical"}, ""},
		{[]string{"--judge-model", "m"}, "--judge-model"},
	} {
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := app.RunTool(tool, append(append([]string{"judge"}, tc.args...), in),
			app.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &stderr, Getenv: func(string) string { return "" }})
		out.Close()
		warned := strings.Contains(stderr.String(), "have no effect")
		if code != 0 || warned != (tc.warn != "") || !strings.Contains(stderr.String(), tc.warn) {
			t.Errorf("judge %v: exit %d, stderr:\n%s\nwant a warning naming %q", tc.args, code, stderr.String(), tc.warn)
		}
	}
}

// --judge-prompt takes a variant some benchmark has, and --judge a mode
// some benchmark takes (or the default); the help and the refusals name
// each benchmark's.
func TestPromptVariantsAndModes(t *testing.T) {
	judged := []Judged{{"A", []string{ModeLLM, ModeLexical}, []string{"x", "y"}, "a"}, {"B", []string{ModeLLM}, []string{"z"}, "b"}, {"C", []string{ModeLLM}, nil, "c"}}
	for _, ok := range []string{"", "x", "y", "z"} {
		if err := checkPrompt(ok, judged); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if err := checkPrompt("w", judged); err == nil || err.Error() != `--judge-prompt "w": want x or y (A), z (B)` {
		t.Errorf("w: %v", err)
	}
	if err := checkPrompt("w", nil); err == nil {
		t.Error("a variant was accepted with no benchmark that has any")
	}
	for _, tc := range []struct {
		mode   string
		judged []Judged
		err    string
	}{
		{ModeLLM, judged, ""},
		{ModeLexical, judged, ""},
		{"fuzzy", judged, `--judge "fuzzy": want llm or lexical`},
		{ModeLLM, nil, ""}, // the default, whatever the benchmarks
		{ModeLexical, judged[1:], `--judge "lexical": want llm`},
		{ModeLexical, nil, `--judge "lexical": no benchmark here has an LLM judge`},
	} {
		if err := checkMode(tc.mode, tc.judged); tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("--judge %s with %d benchmarks: %v, want %q", tc.mode, len(tc.judged), err, tc.err)
		}
	}
	usage := map[string]string{}
	for _, f := range Flags(judged) {
		usage[f.Names()[0]] = f.(interface{ GetUsage() string }).GetUsage()
	}
	if u := usage["judge-prompt"]; u != "judge prompt variant (A: x or y; B: z)" {
		t.Errorf("--judge-prompt usage %q", u)
	}
	if u := usage["judge"]; u != "how the checks that need an LLM judge are judged: llm (a judge model: A, B, C) or lexical (an offline approximation, labelled in every record: A)" {
		t.Errorf("--judge usage %q", u)
	}
}

// The judge's calls share --cache and --dry-run with infer-batch: a second
// run's verdicts come from the cache (judgement.judge.cached), a dry run
// needs no endpoint with --judge-model, and --cache alone (IFKIT_CACHE set
// for a whole pipeline) draws no warning from a judge that calls nothing.
func TestJudgeCacheAndDryRun(t *testing.T) {
	srv, url := startYesSim(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","bench":"echo","text":"sky"}`+"\n"+`{"id":"b","bench":"echo","text":"sea"}`+"\n"+`{"id":"c","bench":"echo","text":"decided"}`+"\n"), 0o644)
	tool := app.Tool{Name: "judge", Flags: Flags(nil), Action: Action(map[string]Factory{"echo": func(Options) (Scorer, error) { return echoScorer{}, nil }}, nil)}
	run := func(args ...string) (int, []byte, string) {
		t.Helper()
		out, _ := os.CreateTemp(t.TempDir(), "out")
		defer out.Close()
		var stderr bytes.Buffer
		code := app.RunTool(tool, append(append([]string{"judge"}, args...), in),
			app.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &stderr, Getenv: func(string) string { return "" }})
		b, _ := os.ReadFile(out.Name())
		return code, b, stderr.String()
	}
	cacheDir := filepath.Join(dir, "cache")
	for i := range 2 {
		code, out, stderr := run("--judge-base-url", url, "--cache", cacheDir)
		if code != 0 || srv.Stats().OK != 2 || bytes.Count(out, []byte(`"cached":true`)) != 2*i {
			t.Fatalf("run %d: exit %d, %d calls in all: %s\n%s", i+1, code, srv.Stats().OK, out, stderr)
		}
	}
	code, out, stderr := run("--dry-run", "--judge-model", "j", "--cache", cacheDir)
	if code != 0 || len(out) != 0 || !strings.Contains(stderr, "3: 2 to send, 1 need no call") {
		t.Fatalf("dry run: exit %d: %s\n%s", code, out, stderr)
	}
	os.WriteFile(in, []byte(`{"id":"c","bench":"echo","text":"decided"}`+"\n"), 0o644)
	if code, _, stderr := run("--cache", cacheDir); code != 0 || strings.Contains(stderr, "no effect") {
		t.Fatalf("--cache with a judge that calls nothing: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run("--cache", cacheDir, "--cache-salt", "s"); code != 0 || !strings.Contains(stderr, "--cache-salt") {
		t.Fatalf("--cache-salt with a judge that calls nothing: exit %d: %s", code, stderr)
	}
}
