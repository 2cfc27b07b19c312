package infer

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// judgeTool uses the engine as judge does: a prefixed endpoint role, its own
// prepare (nil for records decided without a call) and apply (by default,
// the reply becomes the judgement).
func judgeTool(got *Options, apply func(*record.Record, *Result) error) app.Tool {
	if apply == nil {
		apply = func(rec *record.Record, res *Result) error {
			return rec.Set("judgement", map[string]any{"reply": res.Response.Text, "model": res.Model})
		}
	}
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
			// Each record's own call, as a judge's holds the reply it judges.
			return fmt.Appendf(nil, `{"messages":[{"role":"user","content":"judge %s"}],"max_tokens":3}`, rec.ID()), nil
		}, apply)
	}}
}

func runJudge(t *testing.T, env map[string]string, input string, args ...string) (int, []byte, string, Options) {
	t.Helper()
	return runJudgeTool(t, nil, env, input, args...)
}

func runJudgeTool(t *testing.T, apply func(*record.Record, *Result) error, env map[string]string, input string, args ...string) (int, []byte, string, Options) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(p, []byte(input), 0o644)
	out, _ := os.CreateTemp(t.TempDir(), "out")
	defer out.Close()
	var errb lockedBuf
	var opt Options
	code := app.RunTool(judgeTool(&opt, apply), append(append([]string{"judge"}, args...), p), app.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
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

// An apply that rejects a reply with a retryable *oai.Error (judge: an empty
// reply, which EifBench's official judge asks again) sends the request
// again; when every attempt is rejected the record fails with that kind.
func TestApplyAsksAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		empties int // replies that come back empty before a real one
		kind    string
		calls   int64
	}{
		{"one empty reply, then an answer", 1, "", 2},
		{"every reply empty", 99, "empty_reply", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
					return
				}
				text := "ok"
				if calls.Add(1) <= int64(tc.empties) {
					text = ""
				}
				fmt.Fprintf(w, `{"choices":[{"message":{"content":%q},"finish_reason":"stop"}]}`, text)
			}))
			defer srv.Close()
			stats := filepath.Join(t.TempDir(), "stats.json")
			code, b, stderr, _ := runJudgeTool(t, func(rec *record.Record, res *Result) error {
				if res.Response.Text == "" {
					return &oai.Error{Kind: "empty_reply", Message: "empty", Retryable: true}
				}
				return rec.Set("judgement", map[string]any{"reply": res.Response.Text})
			}, nil, `{"id":"a","kind":"llm"}`+"\n", "--judge-base-url", srv.URL, "--judge-model", "m", "--max-retries", "2", "--retry-base", "1ms", "--max-failures", "100%", "--stats", stats)
			recs := parseLines(t, b)
			if code != 0 || len(recs) != 1 {
				t.Fatalf("exit %d, %d records: %s", code, len(recs), stderr)
			}
			if calls.Load() != tc.calls {
				t.Errorf("%d calls, want %d", calls.Load(), tc.calls)
			}
			var e record.Error
			recs[0].Decode("error", &e)
			if e.Kind != tc.kind || recs[0].Has("judgement") == (tc.kind != "") {
				t.Errorf("record %s: error %+v, want kind %q", b, e, tc.kind)
			}
			// records.ok counts the record once, when apply kept its answer:
			// a rejected reply is a request, not a record.
			var sum Summary
			text, _ := os.ReadFile(stats)
			record.Unmarshal(text, &sum)
			wantOK := int64(1)
			if tc.kind != "" {
				wantOK = 0
			}
			if sum.Records.OK != wantOK || sum.Records.OK+sum.Records.Failed != 1 {
				t.Errorf("records %+v, want ok %d of 1", sum.Records, wantOK)
			}
		})
	}
}

// A batch answers once: a reply apply rejects as one to ask again fails the
// record there, with that kind, rather than leaving it with neither a
// judgement nor an error.
func TestBatchImportApplyAsksAgain(t *testing.T) {
	res := filepath.Join(t.TempDir(), "results.jsonl")
	os.WriteFile(res, []byte(`{"custom_id":"a","response":{"status_code":200,"body":{"model":"m","choices":[{"message":{"content":""},"finish_reason":"stop"}]}},"error":null}`+"\n"), 0o644)
	code, b, stderr, _ := runJudgeTool(t, func(rec *record.Record, res *Result) error {
		if res.Response.Text == "" {
			return &oai.Error{Kind: "empty_reply", Message: "empty", Retryable: true}
		}
		return rec.Set("judgement", map[string]any{"reply": res.Response.Text})
	}, nil, `{"id":"a","kind":"llm"}`+"\n", "--batch-import", res, "--judge-model", "m", "--max-failures", "100%")
	recs := parseLines(t, b)
	if code != 0 || len(recs) != 1 {
		t.Fatalf("exit %d, %d records: %s", code, len(recs), stderr)
	}
	var e record.Error
	recs[0].Decode("error", &e)
	if e.Kind != "empty_reply" || recs[0].Has("judgement") {
		t.Errorf("record %s: error %+v, want kind empty_reply", b, e)
	}
}
