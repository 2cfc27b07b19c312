package judge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/infer"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// echoScorer asks the judge "is <text> true?" unless the record says "decided".
type echoScorer struct{}

func (echoScorer) Prepare(rec *record.Record) (Decision, error) {
	t := rec.String("text")
	if t == "decided" {
		return Decision{Judgement: &record.Judgement{Verdict: VerdictMissing, Rubric: "echo"}}, nil
	}
	b, err := ChatCall("is "+t+" true?", 5, 0)
	return Decision{Call: b}, err
}

func (echoScorer) Parse(rec *record.Record, reply string) (*record.Judgement, error) {
	v, err := YesNo{}.Parse(reply)
	if err != nil {
		return nil, err
	}
	return &record.Judgement{Verdict: v, Rubric: "echo"}, nil
}

// yesSolver says yes to "is sky true?" and no to anything else.
type yesSolver struct{}

func (yesSolver) Name() string { return "yes" }
func (yesSolver) Solve(req *sim.Request, _ sim.Params) (string, bool) {
	if strings.Contains(req.Text(), "is sky true?") {
		return "Yes", true
	}
	return "No", true
}

// yesServer is llm-sim serving models (its default one when none) with
// yesSolver, failing every call about "broken" with a 500; it stops when
// the test ends.
func yesServer(t *testing.T, models ...string) (*sim.Server, string) {
	t.Helper()
	opt := sim.DefaultOptions()
	if len(models) > 0 {
		opt.Models = models
	}
	opt.Solvers = []sim.Solver{yesSolver{}}
	opt.FaultPlan = func(_ uint64, req *sim.Request) sim.Fault {
		if strings.Contains(req.Text(), "broken") {
			return sim.Fault500
		}
		return sim.NoFault
	}
	srv := sim.New(opt)
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, url
}

// The judge's LLM path runs through lib/infer: replies become judgements
// with the judge model and reply recorded; decided and failed records pass.
func TestInferProcessor(t *testing.T) {
	srv, url := yesServer(t)

	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	lines := []string{
		`{"id":"a","bench":"echo","text":"sky"}`,
		`{"id":"b","bench":"echo","text":"sea"}`,
		`{"id":"c","bench":"echo","text":"decided"}`,
		`{"id":"d","bench":"echo","error":{"stage":"infer-batch","kind":"x","message":"y"}}`,
		`{"id":"e","bench":"echo","text":"broken"}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := app.Tool{
		Name:  "judge",
		Flags: infer.Flags("judge-"),
		Action: func(r *app.Run) error {
			o, err := infer.OptionsFromFlags(r, "judge-")
			if err != nil {
				return err
			}
			return Run(r, map[string]Factory{"echo": func(Options) (Scorer, error) { return echoScorer{}, nil }}, Options{}, InferProcessor(o))
		},
	}
	var stderr bytes.Buffer
	code := app.RunTool(tool, []string{"judge", "--judge-base-url", url, "--max-retries", "0", "-o", out, in},
		app.Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	// One call fails (a 500, no retries): exit 4 under the default --max-failures 0.
	if code != app.ExitTooManyFail {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	got := readByID(t, out)
	verdict := func(id string) (record.Judgement, bool) {
		var j record.Judgement
		if err := got[id].Decode("judgement", &j); err != nil {
			t.Fatal(err)
		}
		return j, got[id].Has("judgement")
	}
	if j, _ := verdict("a"); j.Verdict != VerdictYes || j.Judge == nil || j.Judge.Model != sim.DefaultModel || j.Judge.Reply != "Yes" || j.Judge.Endpoint == "" {
		t.Errorf("a: %+v %+v", j, j.Judge)
	}
	if j, _ := verdict("b"); j.Verdict != VerdictNo {
		t.Errorf("b: %+v", j)
	}
	if j, _ := verdict("c"); j.Verdict != VerdictMissing || j.Judge != nil {
		t.Errorf("c: %+v", j)
	}
	if _, has := verdict("d"); has || !got["d"].Errored() {
		t.Errorf("d: %s", got["d"].AppendJSON(nil))
	}
	var e record.Error
	if err := got["e"].Decode("error", &e); err != nil || e.Stage != "judge" {
		t.Errorf("e: %s", got["e"].AppendJSON(nil))
	}
	if srv.Stats().Solved["yes"] != 2 {
		t.Errorf("judge calls answered: %v (decided and failed records need none)", srv.Stats().Solved)
	}
}

// A judge model run names its judge model on every record of a benchmark
// with an LLM judge: judged ones, those decided without a call, those that
// failed before judging and those whose judge call failed; records of
// other benchmarks are written as they came. Without --judge-model the
// name is the endpoint's one model, asked before the first record is
// written (the first record here failed before judging: no call is made
// for it).
func TestEveryRecordNamesItsJudge(t *testing.T) {
	_, url := yesServer(t, "judge-a", "judge-b")
	_, url1 := yesServer(t, "judge-c")

	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := []string{
		`{"id":"d","bench":"echo","error":{"stage":"infer-batch","kind":"x","message":"y"}}`,
		`{"id":"a","bench":"echo","text":"sky"}`,
		`{"id":"c","bench":"echo","text":"decided"}`,
		`{"id":"e","bench":"echo","text":"broken"}`,
		`{"id":"p","bench":"program","text":"decided"}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	judged := []Judged{{"Echo", []string{ModeLLM}, nil, "echo"}}
	reg := map[string]Factory{"echo": func(Options) (Scorer, error) { return echoScorer{}, nil }, "program": func(Options) (Scorer, error) { return echoScorer{}, nil }}
	tool := app.Tool{Name: "judge", Flags: Flags(judged), Action: Action(reg, judged)}
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--judge-base-url", url, "--judge-model", "judge-b"}, "judge-b", app.ExitTooManyFail},
		{[]string{"--judge-base-url", url1}, "judge-c", app.ExitTooManyFail},
		{[]string{"--judge-base-url", url}, "", app.ExitUsage}, // two models: which?
	} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		var stderr bytes.Buffer
		code := app.RunTool(tool, append(append([]string{"judge", "--max-retries", "0", "-o", out}, tc.args...), in),
			app.Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
		if code != tc.code {
			t.Fatalf("judge %v: exit %d, want %d\n%s", tc.args, code, tc.code, stderr.String())
		}
		if tc.want == "" {
			if !strings.Contains(stderr.String(), "choose one with --judge-model") {
				t.Errorf("judge %v: %s", tc.args, stderr.String())
			}
			continue
		}
		got := readByID(t, out)
		for _, id := range []string{"a", "c", "d", "e"} {
			if m := got[id].String(record.JudgeModelField); m != tc.want {
				t.Errorf("judge %v: record %s names judge %q, want %q: %s", tc.args, id, m, tc.want, got[id].AppendJSON(nil))
			}
		}
		if got["p"].Has(record.JudgeModelField) {
			t.Errorf("judge %v: a record of a benchmark without an LLM judge names one: %s", tc.args, got["p"].AppendJSON(nil))
		}
	}
}

// A judge run without --judge-model asks each endpoint which model it
// serves once: the name every record carries and the engine's start-up
// check (the model it sends, the server's context) share the answer. The
// judge asks the first endpoint, the engine every one.
func TestJudgeAsksModelsOnce(t *testing.T) {
	srv, url := yesServer(t)
	srv1, url1 := yesServer(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	lines := []string{
		`{"id":"d","bench":"echo","error":{"stage":"infer-batch","kind":"x","message":"y"}}`,
		`{"id":"a","bench":"echo","text":"sky"}`,
		`{"id":"b","bench":"echo","text":"sea"}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	judged := []Judged{{"Echo", []string{ModeLLM}, nil, "echo"}}
	tool := app.Tool{Name: "judge", Flags: Flags(judged), Action: Action(map[string]Factory{"echo": func(Options) (Scorer, error) { return echoScorer{}, nil }}, judged)}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	var stderr bytes.Buffer
	code := app.RunTool(tool, []string{"judge", "--judge-base-url", url + "," + url1, "-o", out, in},
		app.Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for id, rec := range readByID(t, out) {
		if m := rec.String(record.JudgeModelField); m != sim.DefaultModel {
			t.Errorf("record %s names judge %q, want %q", id, m, sim.DefaultModel)
		}
	}
	for i, s := range []*sim.Server{srv, srv1} {
		if n := s.Stats().ByPath["/v1/models"]; n != 1 {
			t.Errorf("endpoint %d: GET /v1/models asked %d times, want once", i, n)
		}
	}
	if n := srv.Stats().Solved["yes"] + srv1.Stats().Solved["yes"]; n != 2 {
		t.Errorf("judge calls answered: %d, want 2", n)
	}
}
