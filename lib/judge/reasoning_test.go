package judge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// textScorer scores a record on its reply's text, as the deterministic
// scorers do: 1 when it is "[3]", else 0.
type textScorer struct{}

func (textScorer) Prepare(rec *record.Record) (Decision, error) {
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		return Decision{}, err
	}
	score := 0.0
	if resp.Text == "[3]" {
		score = 1
	}
	return Decision{Judgement: &record.Judgement{Score: score, Rubric: "text"}}, nil
}

func (textScorer) Parse(*record.Record, string) (*record.Judgement, error) { panic("no call") }

// runJudge runs the judge program over lines with scorers and returns its
// records by id and its stderr.
func runJudge(t *testing.T, scorers map[string]Factory, lines []string, args ...string) (map[string]*record.Record, string) {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := app.Tool{Name: "judge", Flags: Flags(nil), Action: Action(scorers, nil)}
	var stderr bytes.Buffer
	code := app.RunTool(tool, append(append([]string{"judge", "--max-failures", "inf", "-o", out}, args...), in),
		app.Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	return readByID(t, out), stderr.String()
}

// readByID reads a judge output's records by id.
func readByID(t *testing.T, path string) map[string]*record.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*record.Record{}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		r, err := record.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		got[r.ID()] = r
	}
	return got
}

// Records made elsewhere, whose replies still hold a trace, are scored on
// the answer after it; a trace that never ended fails the record
// (reasoning_unfinished, stage judge) instead of being scored; --reasoning
// keep scores the text as received.
func TestJudgeStripsTracesOfRecords(t *testing.T) {
	lines := []string{
		`{"id":"a","bench":"t","response":{"text":"<think>Is it [5]? No, [3].</think>\n\n[3]","finish_reason":"stop"}}`,
		`{"id":"b","bench":"t","request":{"max_tokens":32},"response":{"text":"<think>Maybe [3]","finish_reason":"length"}}`,
		`{"id":"c","bench":"t","response":{"text":"[3]","finish_reason":"stop"}}`,
	}
	scorers := map[string]Factory{"t": func(Options) (Scorer, error) { return textScorer{}, nil }}
	score := func(r *record.Record) float64 {
		var j record.Judgement
		r.Decode("judgement", &j)
		return j.Score
	}
	got, stderr := runJudge(t, scorers, lines)
	if score(got["a"]) != 1 || score(got["c"]) != 1 {
		t.Errorf("a %s\nc %s", got["a"].AppendJSON(nil), got["c"].AppendJSON(nil))
	}
	var e record.Error
	got["b"].Decode("error", &e)
	if got["b"].Has("judgement") || e.Kind != "reasoning_unfinished" || e.Stage != "judge" || !strings.Contains(e.Message, "max_tokens 32") {
		t.Errorf("b: %s", got["b"].AppendJSON(nil))
	}
	if !strings.Contains(stderr, "kind=reasoning_unfinished") {
		t.Errorf("the summary does not count the unfinished trace:\n%s", stderr)
	}
	got, _ = runJudge(t, scorers, lines, "--reasoning", "keep")
	if score(got["a"]) != 0 || score(got["b"]) != 0 || got["b"].Errored() {
		t.Errorf("keep: a %s\nb %s", got["a"].AppendJSON(nil), got["b"].AppendJSON(nil))
	}
}

// thinkingJudge is a judge model that thinks aloud first: its trace says
// the opposite of its verdict.
type thinkingJudge struct{}

func (thinkingJudge) Name() string { return "thinking-judge" }
func (thinkingJudge) Solve(req *sim.Request, _ sim.Params) (string, bool) {
	if strings.Contains(req.Text(), "is sky true?") {
		return "<think>\nAnswer: no? The sky... no, wait.\n</think>\n\nYes", true
	}
	return "<think>\nYes, yes... hmm.\n</think>\n\nNo", true
}

// roomyScorer is echoScorer with room for a trace in the judge's reply.
type roomyScorer struct{ echoScorer }

func (roomyScorer) Prepare(rec *record.Record) (Decision, error) {
	b, err := ChatCall("is "+rec.String("text")+" true?", 64, 0)
	return Decision{Call: b}, err
}

// A judge model's verdict is read from its answer, after its trace, which
// the judgement keeps (judgement.judge.reasoning); --judge-reasoning keep
// reads the reply as received.
func TestJudgeModelThinks(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.Solvers = []sim.Solver{thinkingJudge{}}
	srv := sim.New(opt)
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lines := []string{`{"id":"a","bench":"echo","text":"sky"}`, `{"id":"b","bench":"echo","text":"sea"}`}
	scorers := map[string]Factory{"echo": func(Options) (Scorer, error) { return roomyScorer{}, nil }}
	verdict := func(r *record.Record) *record.Judgement {
		var j record.Judgement
		r.Decode("judgement", &j)
		return &j
	}
	got, _ := runJudge(t, scorers, lines, "--judge-base-url", url)
	a, b := verdict(got["a"]), verdict(got["b"])
	if a.Verdict != VerdictYes || b.Verdict != VerdictNo || a.Judge.Reply != "Yes" || !strings.Contains(a.Judge.Reasoning, "The sky") {
		t.Errorf("a %s\nb %s", got["a"].AppendJSON(nil), got["b"].AppendJSON(nil))
	}
	got, _ = runJudge(t, scorers, lines, "--judge-base-url", url, "--judge-reasoning", "keep")
	if a := verdict(got["a"]); a.Judge == nil || !strings.HasPrefix(a.Judge.Reply, "<think>") || a.Judge.Reasoning != "" {
		t.Errorf("keep: %s", got["a"].AppendJSON(nil))
	}
}
