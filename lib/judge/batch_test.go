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

// startYesSim starts llm-sim answering as yesSolver does.
func startYesSim(t *testing.T) (*sim.Server, string) {
	t.Helper()
	opt := sim.DefaultOptions()
	opt.Solvers = []sim.Solver{yesSolver{}}
	srv := sim.New(opt)
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, url
}

// The judge's calls go through the Batch pair too: --batch-export writes
// the calls of the records that need one, and --batch-api gives the same
// judgements as an online run.
func TestJudgeBatch(t *testing.T) {
	_, url := startYesSim(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(strings.Join([]string{
		`{"id":"a","bench":"echo","text":"sky"}`,
		`{"id":"b","bench":"echo","text":"sea"}`,
		`{"id":"c","bench":"echo","text":"decided"}`,
		`{"id":"d","bench":"echo","error":{"stage":"infer-batch","kind":"x","message":"y"}}`,
	}, "\n")+"\n"), 0o644)
	tool := app.Tool{Name: "judge", Flags: Flags(nil), Action: Action(map[string]Factory{"echo": func(Options) (Scorer, error) { return echoScorer{}, nil }}, nil)}
	run := func(args ...string) []byte {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out.jsonl")
		var stderr bytes.Buffer
		code := app.RunTool(tool, append(append([]string{"judge", "-o", out}, args...), in),
			app.Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
		if code != 0 {
			t.Fatalf("judge %v: exit %d\n%s", args, code, stderr.String())
		}
		b, _ := os.ReadFile(out)
		return b
	}
	export := run("--batch-export", "--judge-model", "j")
	lines := strings.Split(strings.TrimSpace(string(export)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{`) || !strings.Contains(lines[1], `"model":"j"`) {
		t.Fatalf("export:\n%s", export)
	}
	verdicts := func(b []byte) string {
		var s []string
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			rec, err := record.Parse(l)
			if err != nil {
				t.Fatal(err)
			}
			var j record.Judgement
			rec.Decode("judgement", &j)
			reply := ""
			if j.Judge != nil {
				reply = j.Judge.Model + ":" + j.Judge.Reply
			}
			s = append(s, rec.ID()+"="+j.Verdict+"/"+reply)
		}
		return strings.Join(s, " ")
	}
	online := verdicts(run("--judge-base-url", url, "--judge-model", sim.DefaultModel))
	batch := verdicts(run("--batch-api", "--batch-poll", "20ms", "--judge-base-url", url, "--judge-model", sim.DefaultModel))
	if online != batch || !strings.HasPrefix(online, "a=yes/llm-sim:Yes b=no/llm-sim:No c=") {
		t.Fatalf("online %s\nbatch  %s", online, batch)
	}
}
