package infer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// judgeTool uses the engine as judge does: a prefixed endpoint role, its own
// prepare (nil for records decided without a call) and apply.
func judgeTool(got *Options) app.Tool {
	return app.Tool{Name: "judge", Flags: Flags("judge-"), Action: func(r *app.Run) error {
		opt, err := OptionsFromFlags(r, "judge-")
		if err != nil {
			return err
		}
		*got = opt
		return Process(r, opt, func(rec *record.Record) ([]byte, error) {
			if rec.String("kind") == "deterministic" {
				return nil, nil
			}
			return []byte(`{"messages":[{"role":"user","content":"judge this"}],"max_tokens":3}`), nil
		}, func(rec *record.Record, res *Result) error {
			return rec.Set("judgement", map[string]any{"reply": res.Response.Text, "model": res.Model})
		})
	}}
}

func runJudge(t *testing.T, env map[string]string, input string, args ...string) (int, []byte, string, Options) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(p, []byte(input), 0o644)
	out, _ := os.CreateTemp(t.TempDir(), "out")
	defer out.Close()
	var errb lockedBuf
	var opt Options
	code := app.RunTool(judgeTool(&opt), append(append([]string{"judge"}, args...), p), app.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	b, _ := os.ReadFile(out.Name())
	return code, b, errb.String(), opt
}

func TestJudgeRole(t *testing.T) {
	s := startSim(t, sim.DefaultOptions())
	in := `{"id":"a","kind":"deterministic"}` + "\n" + `{"id":"b","kind":"llm"}` + "\n"
	code, out, stderr, opt := runJudge(t, map[string]string{"JUDGE_API_KEY": "jk-1", "OPENAI_API_KEY": "not-this"}, in,
		"--judge-base-url", s.BaseURL(), "--judge-model", sim.DefaultModel, "-j", "2", "--max-failures", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if opt.APIKey != "jk-1" || opt.Role != "judge-" || opt.Concurrency != 2 || opt.Model != sim.DefaultModel {
		t.Fatalf("options %+v", opt)
	}
	recs := parseLines(t, out)
	if len(recs) != 2 || recs[0].Has("judgement") || !recs[1].Has("judgement") {
		t.Fatalf("%s", out)
	}
	if s.Stats().ByPath["/v1/chat/completions"] != 1 {
		t.Fatalf("requests %v", s.Stats().ByPath)
	}
}

// A judge run whose records need no call needs no endpoint; one that does
// needs one and says which flag gives it.
func TestJudgeWithoutEndpoint(t *testing.T) {
	code, out, stderr, _ := runJudge(t, nil, `{"id":"a","kind":"deterministic"}`+"\n")
	if code != 0 || len(parseLines(t, out)) != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr, _ = runJudge(t, nil, `{"id":"b","kind":"llm"}`+"\n")
	if code != app.ExitUsage || !strings.Contains(stderr, "--judge-base-url") || !strings.Contains(stderr, "JUDGE_BASE_URL") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
