package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
)

// Each profile says what it is and how long its context is where the
// server it reproduces says so, and lib/oai, infer-batch's client, reads it
// as it reads that server.
func TestProfilesIdentified(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		kind    string
		context int // from Identify
		loaded  int // from LoadedContext
	}{
		{ProfileSim, "", 512, 0},
		{ProfileVLLM, oai.ServerVLLM, 512, 0},
		{ProfileLlamaCpp, oai.ServerLlamaCpp, 512, 0},
		{ProfileOllama, oai.ServerOllama, 0, 512}, // once the model is loaded
		{ProfileOpenAI, oai.ServerOpenAI, 0, 0},
	} {
		_, url := start(t, Options{Skill: 1, Profile: tc.profile, MaxModelLen: 512})
		c := oai.New(1, time.Second, "")
		ms, err := c.Models(context.Background(), url, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Identify(context.Background(), url, DefaultModel, ms, time.Second)
		if s.Kind != tc.kind || s.Context != tc.context {
			t.Errorf("%q: %+v, want kind %q, context %d", tc.profile, s, tc.kind, tc.context)
		}
		if got := c.LoadedContext(context.Background(), url, DefaultModel, time.Second); got != tc.loaded {
			t.Errorf("%q: loaded context %d, want %d", tc.profile, got, tc.loaded)
		}
	}
}

// --token-scale: usage, /tokenize and the context all count F × llm-sim's
// tokens, and a prompt cut to the context reports it exactly, as Ollama's
// runner keeps exactly num_ctx.
func TestTokenScale(t *testing.T) {
	_, plain := start(t, Options{Skill: 1})
	_, scaled := start(t, Options{Skill: 1, TokenScale: 1.5})
	body := chatBody(words(90), `"max_tokens":4`)
	usage := func(url string) float64 {
		return jsonOf(t, post(t, url, "/chat/completions", body))["usage"].(map[string]any)["prompt_tokens"].(float64)
	}
	p, s := usage(plain), usage(scaled)
	if s != float64(int(p*1.5+0.5)) {
		t.Fatalf("scaled usage %v, plain %v", s, p)
	}
	tok := jsonOf(t, post(t, strings.TrimSuffix(scaled, "/v1"), "/tokenize", `{"model":"llm-sim","messages":[{"role":"user","content":"`+words(90)+`"}]}`))
	if tok["count"] != s || len(tok["tokens"].([]any)) != int(s) {
		t.Fatalf("/tokenize %v, usage %v", tok["count"], s)
	}
	_, cut := start(t, Options{Skill: 1, TokenScale: 1.5, MaxModelLen: 100, Overflow: OverflowTruncate, Solvers: []Solver{seenSolver{}}})
	if got := usage(cut); got != 100 {
		t.Fatalf("cut to the context: usage %v, want 100", got)
	}
}

// --tokenizer: a prompt counted by the model's tokenizer (here one token
// per byte) plus the template, in usage and /tokenize alike.
func TestCountText(t *testing.T) {
	_, url := start(t, Options{Skill: 1, CountText: func(s string) int { return len(s) }})
	r := jsonOf(t, post(t, url, "/chat/completions", chatBody("hello world", `"max_tokens":4`)))
	if got := r["usage"].(map[string]any)["prompt_tokens"]; got != float64(replyPriming+messageFraming+11) {
		t.Fatalf("usage %v", got)
	}
	tok := jsonOf(t, post(t, strings.TrimSuffix(url, "/v1"), "/tokenize", `{"model":"llm-sim","prompt":"hello world"}`))
	if tok["count"] != 11.0 {
		t.Fatalf("/tokenize %v", tok)
	}
	if err := (Options{CountText: func(string) int { return 0 }, Profile: ProfileLlamaCpp}).Validate(); err == nil {
		t.Fatal("--tokenizer with --profile llamacpp accepted")
	}
}

// Ollama bounds a request without max_tokens at 10 × its context: the reply
// stops there with finish_reason length (llm/server.go's num_predict limit).
func TestOllamaBoundsUnlimitedReplies(t *testing.T) {
	long := func(req *Request, p Params) (string, bool) { return words(2000), true }
	_, url := start(t, Options{Skill: 1, Profile: ProfileOllama, MaxModelLen: 64, Solvers: []Solver{solverFunc(long)}})
	for _, extra := range []string{``, `"max_tokens":0`} {
		m := jsonOf(t, post(t, url, "/chat/completions", chatBody("hi", extra)))
		ch := m["choices"].([]any)[0].(map[string]any)
		if u := m["usage"].(map[string]any); u["completion_tokens"] != 640.0 || ch["finish_reason"] != "length" {
			t.Errorf("%s: usage %v, finish %v", extra, u, ch["finish_reason"])
		}
	}
}

type solverFunc func(*Request, Params) (string, bool)

func (solverFunc) Name() string                                  { return "func" }
func (f solverFunc) Solve(req *Request, p Params) (string, bool) { return f(req, p) }
