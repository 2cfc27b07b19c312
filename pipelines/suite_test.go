package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/benches"
)

// readmeSuiteLines are the suite's command lines in the README's first
// section: the smoke run (--limit) and the run on the official data
// (--official), with the environment the README exports.
func readmeSuiteLines(t *testing.T) (env []string, limit, official string) {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	intro, _, _ := strings.Cut(string(data), "\n## ")
	for _, line := range strings.Split(intro, "\n") {
		switch {
		case strings.HasPrefix(line, "export "):
			env = strings.Fields(strings.TrimPrefix(line, "export "))
		case strings.HasPrefix(line, "pipelines/suite.sh ") && strings.Contains(line, " --limit "):
			limit = line
		case strings.HasPrefix(line, "pipelines/suite.sh ") && strings.Contains(line, " --official "):
			official = line
		}
	}
	if env == nil || limit == "" || official == "" {
		t.Fatalf("the README's first section lacks the export of the endpoints, or the suite with --limit, or with --official:\n%s", intro)
	}
	return env, limit, official
}

// suiteSims starts llm-sim twice, as the model's and the judge's servers of
// a README command line, serving the models it names, and returns the
// environment that points the README's endpoints at them.
func suiteSims(t *testing.T, readmeEnv []string, line string) []string {
	t.Helper()
	model := regexp.MustCompile(`--model (\S+)`).FindStringSubmatch(line)
	judge := regexp.MustCompile(`--judge-model (\S+)`).FindStringSubmatch(line)
	if model == nil || judge == nil {
		t.Fatalf("%q names no --model or no --judge-model", line)
	}
	sims := map[string]string{
		"OPENAI_BASE_URL": StartSim(t, "--model", model[1], "--skill", "1"),
		"JUDGE_BASE_URL":  StartSim(t, "--model", judge[1], "--skill", "1"),
	}
	var env []string
	for _, kv := range readmeEnv {
		k, _, _ := strings.Cut(kv, "=")
		if sims[k] == "" {
			t.Fatalf("the README exports %s; this test knows OPENAI_BASE_URL and JUDGE_BASE_URL", k)
		}
		env = append(env, k+"="+sims[k])
	}
	return env
}

// runSuite runs a suite command line in the checkout co from a clean PATH
// (the script finds the checkout's programs itself) and returns its stdout,
// stderr and exit code.
func runSuite(t *testing.T, co string, env []string, line string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = co
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + co}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// titles and cells are each benchmark's as its reports name them.
var (
	titles = map[string]string{"lifbench": "LIFBench", "ifscale": "IFScale", "longins": "LongIns", "longgenbench": "LongGenBench", "eifbench": "EifBench"}
	cells  = map[string]string{"lifbench": "length × task", "ifscale": "density", "longins": "mode × length", "longgenbench": "version × scenario", "eifbench": "subset"}
)

// The suite runs the five benchmarks end to end against llm-sim, as the
// README's first section shows it, from a clean PATH: each in its own folder,
// one report over all of them that says the run was limited. Without a judge
// the two judged benchmarks are skipped with a line and the report says so;
// rerun with one, the suite continues (the others' stages are kept) and the
// report covers all five. A benchmark that fails does not stop the others.
func TestSuite(t *testing.T) {
	shortParallel(t)
	readmeEnv, limitLine, _ := readmeSuiteLines(t)
	env := suiteSims(t, readmeEnv, limitLine)
	co := checkout(t, t.TempDir())
	out := filepath.Join(co, "out", "suite")

	// No judge: LongGenBench and EifBench are skipped, not failed.
	noJudge := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "JUDGE_BASE_URL=") })
	stdout, stderr, code := runSuite(t, co, noJudge, limitLine)
	if code != 0 {
		t.Fatalf("the suite without a judge: exit %d, want 0\n%s", code, tail([]byte(stderr), 4000))
	}
	for _, b := range []string{"longgenbench", "eifbench"} {
		if !strings.Contains(stderr, "suite.sh: "+b+" skipped: it is scored by an LLM judge and none was given") ||
			!strings.Contains(stdout, "- "+b+": skipped, no LLM judge was given") {
			t.Errorf("without a judge, %s is not skipped with a line and a note in the report:\n%s\n%s", b, stderr, stdout)
		}
	}
	for _, b := range []string{"lifbench", "ifscale", "longins"} {
		if _, err := os.Stat(filepath.Join(out, b, "judged.jsonl.zst")); err != nil {
			t.Errorf("%s did not run in its own folder: %v", b, err)
		}
	}

	// With the judge, as the README has it: the suite continues.
	stdout, stderr, code = runSuite(t, co, env, limitLine)
	if code != 0 {
		t.Fatalf("%s: exit %d, want 0\n%s", limitLine, code, tail([]byte(stderr), 4000))
	}
	if !strings.Contains(stderr, "lifbench.sh: requests.jsonl.zst is complete (same command, inputs unchanged): kept") {
		t.Errorf("the rerun did not continue LIFBench's finished run:\n%s", stderr)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || string(report) != stdout {
		t.Fatalf("report.md (%v) is not what the suite printed", err)
	}
	rows, _ := os.ReadFile(filepath.Join(out, "report.jsonl"))
	for b, title := range titles {
		if !strings.Contains(stdout, "### "+title) || !strings.Contains(string(rows), `"bench":"`+b+`"`) {
			t.Errorf("the combined report lacks %s's tables or rows", title)
		}
		if !strings.Contains(stdout, "; limited to the first item of each "+cells[b]+" (--limit 1).\n") {
			t.Errorf("the report does not say %s's run was limited", title)
		}
	}
	if strings.Contains(stdout, "Not in this report") {
		t.Errorf("with a judge, the report still leaves a benchmark out:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no report.html: %v", err)
	}

	// A benchmark that fails (its items' file is missing: exit 3) leaves the
	// others to run; the suite ends with its code, the report naming it.
	stdout, stderr, code = runSuite(t, co, append(env, "LIFBENCH_ARGS=--official no-such.json"), "./pipelines/suite.sh --limit 1 --bench lifbench,ifscale --out out/failing")
	if code != 3 || !strings.Contains(stdout, "### IFScale") || !strings.Contains(stdout, "- lifbench: failed (exit 3;") {
		t.Errorf("a failing LIFBench: exit %d, want 3 with IFScale's report and LIFBench named:\n%s\n%s", code, stdout, tail([]byte(stderr), 2000))
	}

	// Usage errors stop it before anything runs.
	for _, c := range []struct{ args, says string }{
		{"--bench lifbench,nosuch", "--bench nosuch: want some of lifbench,ifscale,longins,longgenbench,eifbench"},
		{"--official no-such-dir", "--official no-such-dir: want the folder of official files"},
		{"--judge-model", "--judge-model needs a value"},
		{"--bench longgenbench", "no benchmark to run"},
	} {
		_, stderr, code := runSuite(t, co, noJudge, "./pipelines/suite.sh --out out/usage "+c.args)
		if code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("suite.sh %s: exit %d, want 2 saying %q:\n%s", c.args, code, c.says, stderr)
		}
	}
}

// The suite on the official data, as the README's first section shows it
// (with --limit 1 added, to be quick), from a folder laid out from the
// workspace's copies of the official files (skipped without them): the
// benchmarks whose files are there run on them and the report says
// "official data" with their names and sizes; LIFBench's contexts and
// EifBench's files are not there, and the suite says what to fetch.
func TestSuiteOfficial(t *testing.T) {
	dir := officialFolder(t)
	readmeEnv, _, line := readmeSuiteLines(t)
	env := suiteSims(t, readmeEnv, line)
	co := checkout(t, t.TempDir())
	if !strings.Contains(line, " --official official/") {
		t.Fatalf("%q: this test puts the official folder at official/", line)
	}
	if err := os.Rename(dir, filepath.Join(co, "official")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runSuite(t, co, env, line+" --limit 1")
	if code != 3 {
		t.Errorf("%s --limit 1 without LIFBench's and EifBench's files: exit %d, want 3\n%s", line, code, tail([]byte(stderr), 4000))
	}
	for _, want := range []string{
		"\nItems: official data: src/inputs/pruned_rules.csv, 4841 bytes, verified; keyword lists in numpy's order, as the official runner draws them; limited to the first item of each density (--limit 1).\n",
		"\nItems: official data: data/GIST/256.json, 2258708 bytes, verified; limited to the first item of each mode × length (--limit 1).\n",
		"\nItems: official data: Dataset/Dataset_short.json, 1474710 bytes, verified; limited to the first item of each version × scenario (--limit 1).\n",
		"- lifbench: failed (exit 3;", "- eifbench: failed (exit 3;",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	for _, b := range []string{"lifbench", "eifbench"} {
		if !strings.Contains(stderr, "not there: `gen-context fetch-official --official official/ --bench "+b+"` fetches it") {
			t.Errorf("the suite does not say how to fetch %s's official files:\n%s", b, stderr)
		}
	}
	if !strings.Contains(stderr, "LongIns: official exams not in official/longins, left out: data/GIST/512.json") {
		t.Errorf("the suite does not say which LongIns exams it left out:\n%s", stderr)
	}
}

// The suite's list of benchmarks is the registry's, in its order, and the
// ones it skips without a judge are those with an LLM judge (judge prompts).
func TestSuiteListsTheRegistry(t *testing.T) {
	src, err := os.ReadFile("suite.sh")
	if err != nil {
		t.Fatal(err)
	}
	list := func(name string) []string {
		m := regexp.MustCompile(`(?m)^` + name + `=\(([^)]*)\)`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("suite.sh has no %s=(...)", name)
		}
		return strings.Fields(string(m[1]))
	}
	var all, judged []string
	for _, b := range benches.All {
		all = append(all, b.Name)
		if len(b.JudgeModes) > 0 {
			judged = append(judged, b.Name)
		}
	}
	if got := list("all_benches"); !slices.Equal(got, all) {
		t.Errorf("suite.sh runs %v, the registry lists %v", got, all)
	}
	if got := list("judged_benches"); !slices.Equal(got, judged) {
		t.Errorf("suite.sh skips %v without a judge, the benchmarks with an LLM judge are %v", got, judged)
	}
}
