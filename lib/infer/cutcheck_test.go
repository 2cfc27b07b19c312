package infer

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// mountSim serves an llm-sim behind a handler that answers 404 for the
// paths in hide (an older server without them) and, with delay, holds each
// completion request as long as delay says for its body, so that replies
// arrive in another order than the requests went out.
func mountSim(t *testing.T, opt sim.Options, delay func(body []byte) time.Duration, hide ...string) string {
	t.Helper()
	s := sim.New(opt)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slices.Contains(hide, r.URL.Path) {
			http.NotFound(w, r)
			return
		}
		if delay != nil && strings.HasSuffix(r.URL.Path, "/completions") {
			var b bytes.Buffer
			b.ReadFrom(r.Body)
			r.Body.Close()
			time.Sleep(delay(b.Bytes()))
			r.Body = readCloser{bytes.NewReader(b.Bytes())}
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); srv.Close() })
	return srv.URL + "/v1"
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// prose is n words of plain English-like text, the same for a seed.
func prose(n int, seed uint64) string {
	words := strings.Fields("the river town kept records of ships and cargo while clerks copied ledgers by lamp light each winter and the ferry ran twice a day when weather allowed it")
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(12) == 0 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

type chat = []map[string]string

func writeChats(t *testing.T, chats map[string]chat, order []string) string {
	t.Helper()
	var b bytes.Buffer
	for _, id := range order {
		line, err := record.Marshal(map[string]any{"id": id, "request": map[string]any{"messages": chats[id], "max_tokens": 8}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func responses(t *testing.T, out []byte) map[string]record.Response {
	t.Helper()
	m := map[string]record.Response{}
	for _, rec := range parseLines(t, out) {
		var resp record.Response
		if err := rec.Decode("response", &resp); err != nil || !rec.Has("response") {
			t.Fatalf("%s has no response: %s", rec.ID(), rec.AppendJSON(nil))
		}
		m[rec.ID()] = resp
	}
	return m
}

// An Ollama older than /api/ps's context_length, serving a model whose
// tokenizer counts half again o200k_base's tokens: cut by an eighth, the
// long prompts fall within the estimate's prior margin, yet every one is
// flagged and no short one is, whether the cut ones come first or last,
// and whatever order the replies arrive in: the records wait until the
// estimate is calibrated (and the context inferred) before they are judged.
func TestCutsFlaggedWhateverTheOrder(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.Profile, opt.MaxModelLen, opt.TokenScale = sim.ProfileOllama, 2600, 1.5
	chats := map[string]chat{}
	var long, short []string
	for i := range 24 {
		id := fmt.Sprintf("long%02d", i)
		chats[id] = chat{{"role": "user", "content": prose(1900+10*i, uint64(i))}} // ~2,000 o200k: ~3,000 counted, cut to 2,600
		long = append(long, id)
		id = fmt.Sprintf("short%02d", i)
		chats[id] = chat{{"role": "user", "content": prose(900+10*i, uint64(100+i))}} // ~1,500 counted: fits
		short = append(short, id)
	}
	// A request's delay depends on its text: replies come back shuffled.
	delay := func(b []byte) time.Duration {
		h := fnv.New32a()
		h.Write(b)
		return time.Duration(h.Sum32()%20) * time.Millisecond
	}
	var first map[string]record.Response
	for _, tc := range []struct {
		name  string
		order []string
		j     string
	}{
		{"cut ones first, one at a time", append(slices.Clone(long), short...), "1"},
		{"cut ones first, 16 at a time", append(slices.Clone(long), short...), "16"},
		{"cut ones last", append(slices.Clone(short), long...), "16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := mountSim(t, opt, delay, "/api/ps")
			code, out, stderr := runBatch(t, nil, "--base-url", base, "--model", sim.DefaultModel, "-j", tc.j, writeChats(t, chats, tc.order))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := responses(t, out)
			for id, resp := range got {
				if cut := strings.HasPrefix(id, "long"); resp.ServerTruncated != cut {
					t.Errorf("%s: server_truncated %v (sent %d, server counted %d)", id, resp.ServerTruncated, resp.PromptTokensSent, resp.Usage.PromptTokens)
				}
			}
			if !strings.Contains(stderr, "calibrated on") || !strings.Contains(stderr, "inferred from the replies") {
				t.Errorf("the summary does not say how the replies were checked:\n%s", stderr)
			}
			if first == nil {
				first = got
				return
			}
			for id, resp := range got {
				if a := first[id]; a.ServerTruncated != resp.ServerTruncated || a.CutCheck != resp.CutCheck || a.CutMargin != resp.CutMargin {
					t.Errorf("%s judged %v/%s/%v, first %v/%s/%v", id, resp.ServerTruncated, resp.CutCheck, resp.CutMargin, a.ServerTruncated, a.CutCheck, a.CutMargin)
				}
			}
		})
	}
}

// Ollama drops whole older messages of a chat that does not fit (never the
// system message nor the last one) and says so only in usage: the count is
// below its context, short of the prompt by the messages that went. The
// calibrated estimate finds them, by less than the prior's quarter, and the
// records say the check was calibrated, with its margin.
func TestDroppedMessagesFlagged(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.Profile, opt.MaxModelLen = sim.ProfileOllama, 1300
	chats := map[string]chat{}
	var order []string
	for i := range 20 {
		id := fmt.Sprintf("one%02d", i)
		chats[id] = chat{{"role": "user", "content": prose(700+10*i, uint64(i))}}
		order = append(order, id)
	}
	for i := range 8 {
		id := fmt.Sprintf("chat%02d", i)
		chats[id] = chat{
			{"role": "system", "content": prose(40, 200)},
			{"role": "user", "content": prose(200, uint64(300+i))}, // dropped whole
			{"role": "assistant", "content": prose(40, 201)},
			{"role": "user", "content": prose(1000, uint64(400+i))},
		}
		order = append(order, id)
	}
	base := mountSim(t, opt, nil)
	code, out, stderr := runBatch(t, nil, "--base-url", base, "--model", sim.DefaultModel, "-j", "4", writeChats(t, chats, order))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := responses(t, out)
	// The server's count over the estimate, on the one-message prompts.
	ratio := float64(got["one00"].Usage.PromptTokens) / float64(got["one00"].PromptTokensSent)
	for id, resp := range got {
		if strings.HasPrefix(id, "chat") {
			short := 1 - float64(resp.Usage.PromptTokens)/(float64(resp.PromptTokensSent)*ratio)
			if !resp.ServerTruncated || resp.CutCheck != "calibrated" || resp.CutMargin <= 0 || resp.Usage.PromptTokens >= opt.MaxModelLen {
				t.Errorf("%s: %+v", id, resp)
			}
			if short > 0.2 {
				t.Errorf("%s lost %.0f %% by the estimate: the prior margin would have seen it, the test shows nothing", id, 100*short)
			}
			continue
		}
		if resp.ServerTruncated || resp.CutCheck != "exact" {
			t.Errorf("%s: %+v", id, resp)
		}
	}
}

// A server that reports no usage leaves every record unchecked, and the
// summary says so.
func TestNoUsageNotChecked(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.NoUsage = true
	base := mountSim(t, opt, nil)
	for _, stream := range []string{"--stream=false", "--stream"} {
		code, out, stderr := runBatch(t, nil, "--base-url", base, "--model", sim.DefaultModel, stream, writeInput(t, 3, 4))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for id, resp := range responses(t, out) {
			if resp.CutCheck != "unchecked" || resp.ServerTruncated || resp.Usage.PromptTokens != 0 {
				t.Errorf("%s %s: %+v", stream, id, resp)
			}
		}
		if !strings.Contains(stderr, "cuts not checked on 3 records: the server reported no usage") {
			t.Errorf("%s: %s", stream, stderr)
		}
	}
}

// A reply stopped by the server's own limit, not the request's, is flagged
// runaway and counted; a server that ignores n or max_completion_tokens is
// warned about once.
func TestRunawayAndIgnoredSettings(t *testing.T) {
	opt := sim.DefaultOptions()
	opt.MaxModelLen = 80 // a request without max_tokens stops where the context is full
	base := mountSim(t, opt, nil)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"free","request":{"messages":[{"role":"user","content":"`+prose(40, 1)+`"}]}}`+"\n"+
		`{"id":"bounded","request":{"messages":[{"role":"user","content":"`+prose(40, 2)+`"}],"max_tokens":4}}`+"\n"), 0o644)
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, out, stderr := runBatch(t, nil, "--base-url", base, "--model", sim.DefaultModel, "--stats", stats, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := responses(t, out)
	if r := got["free"]; !r.Runaway || r.FinishReason != "length" {
		t.Errorf("free: %+v", r)
	}
	if r := got["bounded"]; r.Runaway || r.FinishReason != "length" {
		t.Errorf("bounded: %+v", r)
	}
	var sum Summary
	b, _ := os.ReadFile(stats)
	if err := record.Unmarshal(b, &sum); err != nil || sum.Runaway != 1 || !slices.Equal(sum.RunawayIDs, []string{"free"}) || !strings.Contains(stderr, "runaway=1") {
		t.Errorf("--stats %s; stderr %s", b, stderr)
	}

	ollama := sim.DefaultOptions()
	ollama.Profile = sim.ProfileOllama
	base = mountSim(t, ollama, nil)
	os.WriteFile(in, []byte(`{"id":"a","request":{"messages":[{"role":"user","content":"say something"}],"max_completion_tokens":2,"n":2}}`+"\n"+
		`{"id":"b","request":{"messages":[{"role":"user","content":"say more"}],"max_completion_tokens":2,"n":2}}`+"\n"), 0o644)
	code, _, stderr = runBatch(t, nil, "--base-url", base, "--model", sim.DefaultModel, in)
	if code != 0 || strings.Count(stderr, "ignored the request's n (2)") != 1 || strings.Count(stderr, "ignored max_completion_tokens") != 1 {
		t.Errorf("exit %d, want one warning each:\n%s", code, stderr)
	}
}

// A reply is runaway when it stopped at length past the request's
// max_tokens by any amount: real servers stop at max_tokens and count each
// generated token once, a reasoning trace included, so there is no slack.
func TestRunawayNoSlack(t *testing.T) {
	for _, tc := range []struct {
		max, got int
		finish   string
		usage    bool
		want     bool
	}{
		{100, 100, "length", true, false},
		{100, 101, "length", true, true}, // one past max_tokens: the server ignored it
		{100, 116, "length", true, true},
		{100, 20480, "length", true, true},
		{100, 300, "stop", true, false},  // not stopped by a limit at all
		{100, 0, "length", false, false}, // no usage: nothing to say
		{0, 5, "length", true, true},     // no max_tokens: the server's own limit
	} {
		c := &call{maxTokens: tc.max}
		comp := &oai.Completion{FinishReason: tc.finish, HasUsage: tc.usage, Usage: oai.Usage{CompletionTokens: tc.got}}
		if got := runaway(c, comp); got != tc.want {
			t.Errorf("max_tokens %d, completion_tokens %d, %s, usage %v: runaway %v; want %v", tc.max, tc.got, tc.finish, tc.usage, got, tc.want)
		}
	}
}

// --max-model-len's pre-flight check follows the server's manners: vLLM
// refuses a request whose max_tokens alone exceeds the context, Ollama
// answers it (it shifts its context while it generates).
func TestPreflightFollowsManners(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","request":{"messages":[{"role":"user","content":"`+prose(50, 1)+`"}],"max_tokens":10000}}`+"\n"), 0o644)
	for _, tc := range []struct {
		profile sim.Profile
		kind    string
	}{{sim.ProfileVLLM, "context_length"}, {sim.ProfileOllama, ""}} {
		opt := sim.DefaultOptions()
		opt.Profile, opt.MaxModelLen = tc.profile, 2048
		base := mountSim(t, opt, nil)
		code, out, stderr := runBatch(t, nil, "--base-url", base, "--model", sim.DefaultModel, "--max-model-len", "2048", "--max-failures", "inf", in)
		var e record.Error
		parseLines(t, out)[0].Decode("error", &e)
		if code != 0 || e.Kind != tc.kind {
			t.Errorf("%s: exit %d, error %+v: %s", tc.profile, code, e, stderr)
		}
	}
}
