package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// seenSolver answers every prompt with what reached it: the prompt tokens
// the server counted and the prompt's first and last words, so a test sees
// what a truncation kept.
type seenSolver struct{}

func (seenSolver) Name() string { return "seen" }

func (seenSolver) Solve(req *Request, p Params) (string, bool) {
	w := strings.Fields(req.Text())
	if len(w) == 0 {
		w = []string{""}
	}
	return fmt.Sprintf("tokens=%d first=%s last=%s", p.PromptTokens, w[0], w[len(w)-1]), true
}

// words is n distinct words of letters, one token each: word(0) … word(n-1).
func words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word(i)
	}
	return strings.Join(ws, " ")
}

// word i is "w" and i in base 26 written with letters: wa, wb, …, wba.
func word(i int) string {
	s := ""
	for {
		s = string(rune('a'+i%26)) + s
		if i /= 26; i == 0 {
			return "w" + s
		}
	}
}

// jsonOf decodes a reply body into a generic map.
func jsonOf(t *testing.T, r result) map[string]any {
	t.Helper()
	if r.err != nil {
		t.Fatalf("request failed: %v", r.err)
	}
	var m map[string]any
	if err := record.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, r.body)
	}
	return m
}

// classify sends body through lib/oai, the client infer-batch uses, and
// returns the error kind it gives the reply ("" for a success).
func classify(t *testing.T, url, path, body string) (*oai.Completion, string) {
	t.Helper()
	c := oai.New(1, time.Second, "")
	defer c.Close()
	comp, err := c.Complete(context.Background(), oai.Call{Base: url, Path: path, Body: []byte(body), Stream: strings.Contains(body, `"stream":true`), Total: 10 * time.Second})
	var e *oai.Error
	if errors.As(err, &e) {
		return nil, e.Kind
	}
	if err != nil {
		t.Fatal(err)
	}
	return comp, ""
}

func TestMaxModelLen(t *testing.T) {
	const L = 64
	chat := func(content, extra string) string { return chatBody(content, extra) }
	long := words(100)        // 100 + 7 template tokens
	fits := words(L - 7 - 10) // 47 + 7 = 54: room for 10 reply tokens
	tests := []struct {
		name     string
		profile  Profile
		overflow Overflow
		path     string
		body     string
		status   int
		kind     string // what lib/oai makes of it
		check    func(t *testing.T, m map[string]any)
	}{
		{"vllm body", ProfileSim, "", "/chat/completions", chat(long, `"max_tokens":10`), 400, oai.KindContextLength, func(t *testing.T, m map[string]any) {
			want := "This model's maximum context length is 64 tokens. However, you requested 117 tokens (107 in the messages, 10 in the completion). Please reduce the length of the messages or completion."
			if m["object"] != "error" || m["message"] != want || m["type"] != "BadRequestError" || m["code"] != 400.0 || m["param"] != nil {
				t.Fatalf("body %v", m)
			}
		}},
		{"vllm no max_tokens", ProfileVLLM, "", "/completions", `{"model":"llm-sim","prompt":"` + long + `"}`, 400, oai.KindContextLength, func(t *testing.T, m map[string]any) {
			want := "This model's maximum context length is 64 tokens. However, you requested 100 tokens in the messages, Please reduce the length of the messages."
			if m["message"] != want {
				t.Fatalf("message %q", m["message"])
			}
		}},
		{"prompt fits but not the reply", ProfileVLLM, "", "/chat/completions", chat(fits, `"max_tokens":11`), 400, oai.KindContextLength, nil},
		{"prompt and reply fit", ProfileVLLM, "", "/chat/completions", chat(fits, `"max_tokens":10`), 200, "", nil},
		{"without max_tokens the reply ends at the context", ProfileVLLM, "", "/chat/completions", chat(words(L-7-4), ""), 200, "", func(t *testing.T, m map[string]any) {
			c := m["choices"].([]any)[0].(map[string]any)
			u := m["usage"].(map[string]any)
			if c["finish_reason"] != "length" || u["prompt_tokens"].(float64)+u["completion_tokens"].(float64) != L {
				t.Fatalf("finish %v, usage %v: want the reply cut where the context is full", c["finish_reason"], u)
			}
		}},
		{"openai body", ProfileOpenAI, "", "/chat/completions", chat(long, ""), 400, oai.KindContextLength, func(t *testing.T, m map[string]any) {
			e := m["error"].(map[string]any)
			if e["code"] != "context_length_exceeded" || e["param"] != "messages" || e["type"] != "invalid_request_error" ||
				e["message"] != "This model's maximum context length is 64 tokens. However, your messages resulted in 107 tokens. Please reduce the length of the messages." {
				t.Fatalf("body %v", m)
			}
		}},
		{"openai completions body", ProfileOpenAI, "", "/completions", `{"model":"llm-sim","max_tokens":5,"prompt":"` + long + `"}`, 400, oai.KindContextLength, func(t *testing.T, m map[string]any) {
			if e := m["error"].(map[string]any); e["param"] != "prompt" || !strings.Contains(e["message"].(string), "(100 in your prompt; 5 for the completion)") {
				t.Fatalf("body %v", m)
			}
		}},
		{"llamacpp body", ProfileLlamaCpp, "", "/chat/completions", chat(long, ""), 400, oai.KindContextLength, func(t *testing.T, m map[string]any) {
			// ChatML costs 5 tokens a message: 3 + 105.
			e := m["error"].(map[string]any)
			if e["type"] != "exceed_context_size_error" || e["n_ctx"] != float64(L) || e["n_prompt_tokens"] != 108.0 || e["code"] != 400.0 {
				t.Fatalf("body %v", m)
			}
		}},
		{"ollama truncates chat", ProfileOllama, "", "/chat/completions", chat(long, `"max_tokens":10`), 200, "", func(t *testing.T, m map[string]any) {
			u := m["usage"].(map[string]any)
			text := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
			// 107 tokens: the first 43 words go, the last 57 and the template stay.
			if u["prompt_tokens"] != float64(L) || text != "tokens=64 first="+word(43)+" last="+word(99) {
				t.Fatalf("usage %v, reply %q", u, text)
			}
		}},
		{"ollama truncates completions after its template", ProfileOllama, "", "/completions", `{"model":"llm-sim","prompt":"` + long + `"}`, 200, "", func(t *testing.T, m map[string]any) {
			// The template's 26 tokens stay: 38 words of the prompt are left.
			u := m["usage"].(map[string]any)
			if text := m["choices"].([]any)[0].(map[string]any)["text"]; u["prompt_tokens"] != float64(L) || text != "tokens=64 first="+word(62)+" last="+word(99) {
				t.Fatalf("usage %v, reply %q", u, text)
			}
		}},
		{"truncate drops older messages, never the system message", ProfileSim, OverflowTruncate, "/chat/completions",
			`{"model":"llm-sim","messages":[{"role":"system","content":"` + words(30) + `"},{"role":"user","content":"` + words(40) + `"},{"role":"user","content":"` + words(50) + `"}]}`, 200, "",
			func(t *testing.T, m map[string]any) {
				// 3 + 34 + 44 + 54 = 135: the older user message goes whole
				// (91 left), then the runner cuts 27 more from the front, the
				// system message's first words.
				text := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
				if u := m["usage"].(map[string]any); u["prompt_tokens"] != float64(L) || text != "tokens=64 first="+word(27)+" last="+word(49) {
					t.Fatalf("usage %v, reply %q", u, text)
				}
			}},
		{"truncate: a whole older message is enough", ProfileOllama, "", "/chat/completions",
			`{"model":"llm-sim","messages":[{"role":"system","content":"` + words(5) + `"},{"role":"user","content":"` + words(40) + `"},{"role":"assistant","content":"` + words(6) + `"},{"role":"user","content":"` + words(30) + `"}]}`, 200, "",
			func(t *testing.T, m map[string]any) {
				// 3 + 9 + 44 + 10 + 34 = 100: the first user message goes
				// (56 left, under the context: no count says so), then the
				// assistant's stays.
				text := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
				if u := m["usage"].(map[string]any); u["prompt_tokens"] != 56.0 || text != "tokens=56 first="+word(0)+" last="+word(29) {
					t.Fatalf("usage %v, reply %q", u, text)
				}
			}},
		{"vllm told to truncate", ProfileVLLM, OverflowTruncate, "/chat/completions", chat(long, ""), 200, "", nil},
		{"ollama told to refuse", ProfileOllama, OverflowError, "/chat/completions", chat(long, ""), 400, oai.KindContextLength, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, url := start(t, Options{Skill: 1, MaxModelLen: L, Overflow: tc.overflow, Profile: tc.profile, Solvers: []Solver{seenSolver{}}})
			r := post(t, url, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.check != nil {
				tc.check(t, jsonOf(t, r))
			}
			if _, kind := classify(t, url, tc.path, tc.body); kind != tc.kind {
				t.Fatalf("lib/oai sees %q, want %q", kind, tc.kind)
			}
			// Both attempts (ours and lib/oai's) are refused, or both cut.
			want := int64(0)
			if tc.status == 400 {
				want = 2
			}
			cut := int64(0)
			if strings.Contains(tc.name, "truncate") {
				cut = 2
			}
			if st := s.Stats(); st.ContextErrors != want || st.PromptsCut != cut {
				t.Errorf("Stats.ContextErrors %d (want %d), PromptsCut %d (want %d)", st.ContextErrors, want, st.PromptsCut, cut)
			}
		})
	}
}

func TestAbortFault(t *testing.T) {
	_, url := start(t, Options{Skill: 1, FaultPlan: func(uint64, *Request) Fault { return FaultAbort }})
	const runaway = " the the the the the the the the the the the the the the the the the the the the the the the the the the the the the the the"
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			body := chatBody("tell me a story", "")
			if stream {
				body = chatBody("tell me a story", `"stream":true,"stream_options":{"include_usage":true}`)
			}
			r := post(t, url, "/chat/completions", body)
			if r.err != nil || r.status != 200 {
				t.Fatalf("status %d, err %v", r.status, r.err)
			}
			if !stream {
				m := jsonOf(t, r)
				c := m["choices"].([]any)[0].(map[string]any)
				u := m["usage"].(map[string]any)
				text := c["message"].(map[string]any)["content"].(string)
				if v, set := c["finish_reason"]; !set || v != nil || u["prompt_tokens"] != 0.0 || u["completion_tokens"] != 0.0 || !strings.HasSuffix(text, runaway) || text == runaway {
					t.Fatalf("want partial text ending in the runaway word, finish_reason null and zero usage: %s", r.body)
				}
			} else {
				events, done := sse(t, r.body)
				text, finish, u := streamed(events, "content")
				if done || finish != "" || u != nil || !strings.HasSuffix(text, runaway) {
					t.Fatalf("[DONE] %v, finish %q, usage %v, text %q: want the partial text and nothing after", done, finish, u, text)
				}
			}
			if _, kind := classify(t, url, "/chat/completions", body); kind != oai.KindAborted {
				t.Fatalf("lib/oai sees %q, want %q", kind, oai.KindAborted)
			}
		})
	}
	// Ollama stops at max_tokens before its guard fires: the partial text stays below it.
	m := jsonOf(t, post(t, url, "/chat/completions", chatBody("tell me a story", `"max_tokens":8`)))
	if u := EstimateTokens(m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)); u >= 8 {
		t.Errorf("aborted reply of %d tokens with max_tokens 8", u)
	}
}

// Concurrent /tokenize calls each count their own messages: the pooled body
// buffer is not handed to another request while its messages are parsed.
func TestTokenizeConcurrent(t *testing.T) {
	_, url := start(t, Options{Skill: 1, Profile: ProfileVLLM})
	base := strings.TrimSuffix(url, "/v1")
	body := func(i int) string {
		return `{"model":"llm-sim","messages":[{"role":"user","content":"` + strings.Repeat("word ", 200+37*i) + `"}]}`
	}
	want := make([]any, 16)
	for i := range want {
		want[i] = jsonOf(t, post(t, base, "/tokenize", body(i)))["count"]
	}
	var wg sync.WaitGroup
	for range 16 {
		for i := range want {
			wg.Go(func() {
				if got := jsonOf(t, post(t, base, "/tokenize", body(i)))["count"]; got != want[i] {
					t.Errorf("request %d counted %v concurrently, %v alone", i, got, want[i])
				}
			})
		}
	}
	wg.Wait()
}

func TestTokenizeMatchesUsage(t *testing.T) {
	messages := []string{
		`[{"role":"user","content":"hello"}]`,
		`[{"role":"system","content":"Answer in French."},{"role":"user","content":"Count: 1234567, ----, 日本語 and naïve café.\n\n  indented"}]`,
		`[{"role":"user","content":[{"type":"text","text":"part one"},{"type":"text","text":"part two"}]},{"role":"assistant","content":null},{"role":"tool","content":"42"}]`,
	}
	for _, profile := range []Profile{ProfileSim, ProfileVLLM} {
		_, url := start(t, Options{Skill: 1, Profile: profile, MaxModelLen: 4096, Solvers: []Solver{seenSolver{}}})
		base := strings.TrimSuffix(url, "/v1")
		for _, msgs := range messages {
			c := decode(t, post(t, url, "/chat/completions", `{"model":"llm-sim","messages":`+msgs+`}`))
			tok := jsonOf(t, post(t, base, "/tokenize", `{"model":"llm-sim","messages":`+msgs+`}`))
			if tok["count"] != float64(c.Usage.PromptTokens) || len(tok["tokens"].([]any)) != c.Usage.PromptTokens || tok["max_model_len"] != 4096.0 {
				t.Errorf("%s %s: tokenize %v, usage.prompt_tokens %d", profile, msgs, tok, c.Usage.PromptTokens)
			}
			bare := jsonOf(t, post(t, base, "/tokenize", `{"model":"llm-sim","add_generation_prompt":false,"messages":`+msgs+`}`))
			if bare["count"] != float64(c.Usage.PromptTokens-replyPriming) {
				t.Errorf("%s: without the generation prompt count %v, want %d", msgs, bare["count"], c.Usage.PromptTokens-replyPriming)
			}
		}
		for _, prompt := range []string{"Once upon a time", "x", "", "  spaced\n\n\n  out 3.14159 !!!"} {
			q := string(record.Quote(prompt))
			c := decode(t, post(t, url, "/completions", `{"model":"llm-sim","prompt":`+q+`}`))
			tok := jsonOf(t, post(t, base, "/tokenize", `{"model":"llm-sim","prompt":`+q+`}`))
			if tok["count"] != float64(c.Usage.PromptTokens) {
				t.Errorf("%s %q: tokenize %v, usage.prompt_tokens %d", profile, prompt, tok["count"], c.Usage.PromptTokens)
			}
		}
		for body, status := range map[string]int{
			`{"model":"llm-sim"}`:                       400,
			`{"model":"gpt-9","prompt":"a"}`:            404,
			`{"messages":[{"content":"no role"}]}`:      400,
			`{"messages":[],"add_generation_prompt":1}`: 400,
			`not json`:                      400,
			`{"prompt":"no model is fine"}`: 200,
		} {
			if r := post(t, base, "/tokenize", body); r.status != status {
				t.Errorf("%s /tokenize %s: status %d, want %d", profile, body, r.status, status)
			}
		}
	}
	_, url := start(t, Options{Skill: 1, Profile: ProfileLlamaCpp})
	base := strings.TrimSuffix(url, "/v1")
	// llama.cpp: render with /apply-template, count with /tokenize.
	for _, msgs := range append(messages, `[{"role":"user","content":"  leading space and <|im_end|> inside"}]`) {
		c := decode(t, post(t, url, "/chat/completions", `{"model":"llm-sim","messages":`+msgs+`}`))
		prompt := jsonOf(t, post(t, base, "/apply-template", `{"messages":`+msgs+`}`))["prompt"].(string)
		q := string(record.Quote(prompt))
		ids := jsonOf(t, post(t, base, "/tokenize", `{"content":`+q+`,"add_special":true}`))["tokens"].([]any)
		if len(ids) != c.Usage.PromptTokens || !strings.HasPrefix(prompt, imStart) || !strings.HasSuffix(prompt, imStart+"assistant\n") {
			t.Errorf("llama.cpp %s: %d tokens of %q, usage.prompt_tokens %d", msgs, len(ids), prompt, c.Usage.PromptTokens)
		}
		asText := jsonOf(t, post(t, base, "/tokenize", `{"content":`+q+`,"parse_special":false}`))["tokens"].([]any)
		pieces := jsonOf(t, post(t, base, "/tokenize", `{"content":`+q+`,"with_pieces":true}`))["tokens"].([]any)
		joined := ""
		for _, p := range pieces {
			joined += p.(map[string]any)["piece"].(string)
		}
		if len(asText) <= len(ids) || joined != prompt || len(pieces) != len(ids) {
			t.Errorf("llama.cpp %s: %d tokens without parse_special (want more than %d), pieces %q", msgs, len(asText), len(ids), joined)
		}
	}
	content := "Count: 1234567, ----, 日本語"
	tok := jsonOf(t, post(t, base, "/tokenize", `{"content":`+string(record.Quote(content))+`}`))
	if len(tok["tokens"].([]any)) != EstimateTokens(content) || len(tok) != 1 {
		t.Errorf("llama.cpp tokenize %v, want %d tokens only", tok, EstimateTokens(content))
	}
	// llama.cpp answers vLLM's shape with no tokens, so a client probing
	// for a tokenize API sees a count of 0.
	if r := post(t, base, "/tokenize", `{"prompt":"vLLM's shape"}`); r.status != 200 || string(r.body) != `{"tokens":[]}`+"\n" {
		t.Errorf("llama.cpp /tokenize without content: %d %s", r.status, r.body)
	}
	for _, p := range []Profile{ProfileOllama, ProfileOpenAI} {
		_, url := start(t, Options{Skill: 1, Profile: p})
		if r := post(t, strings.TrimSuffix(url, "/v1"), "/tokenize", `{"prompt":"a"}`); r.status != 404 {
			t.Errorf("%s serves /tokenize: %d", p, r.status)
		}
	}
}

// absent stands for a key the body must not have (nil: present and null).
var absent = struct{ absent bool }{true}

// TestProfiles pins what each --profile switches, one quirk per row.
func TestProfiles(t *testing.T) {
	type check func(t *testing.T, r result)
	status := func(want int) check {
		return func(t *testing.T, r result) {
			if r.status != want {
				t.Fatalf("status %d, want %d: %s", r.status, want, r.body)
			}
		}
	}
	// errBody checks the status and the error body by its JSON paths.
	errBody := func(want int, fields map[string]any) check {
		return func(t *testing.T, r result) {
			status(want)(t, r)
			m := jsonOf(t, r)
			for path, v := range fields {
				var got any = m
				for _, k := range strings.Split(path, ".") {
					switch x := got.(type) {
					case map[string]any:
						var ok bool
						if got, ok = x[k]; !ok {
							got = absent
						}
					case []any:
						i, _ := strconv.Atoi(k)
						got = x[i]
					}
				}
				if got != v {
					t.Fatalf("%s = %#v, want %#v in %s", path, got, v, r.body)
				}
			}
		}
	}
	reply := func(fn func(t *testing.T, c chatResp)) check {
		return func(t *testing.T, r result) {
			status(200)(t, r)
			fn(t, decode(t, r))
		}
	}
	promptTokensAre := func(n int) check {
		return reply(func(t *testing.T, c chatResp) {
			if c.Usage.PromptTokens != n {
				t.Fatalf("prompt_tokens %d, want %d", c.Usage.PromptTokens, n)
			}
		})
	}
	replyCutAt := func(n int) check {
		return reply(func(t *testing.T, c chatResp) {
			if c.Usage.CompletionTokens != n || c.Choices[0].FinishReason != "length" {
				t.Fatalf("completion_tokens %d (%s), want %d (length)", c.Usage.CompletionTokens, c.Choices[0].FinishReason, n)
			}
		})
	}
	notCut := reply(func(t *testing.T, c chatResp) {
		if c.Choices[0].FinishReason != "stop" || len(c.Choices) != 1 {
			t.Fatalf("finish %s, %d choices: want one whole reply", c.Choices[0].FinishReason, len(c.Choices))
		}
	})
	// usageOnFinish: the finish chunk carries usage although none was asked.
	usageOnFinish := func(want bool) check {
		return func(t *testing.T, r result) {
			status(200)(t, r)
			events, done := sse(t, r.body)
			for _, ev := range events {
				chs, _ := ev["choices"].([]any)
				if len(chs) == 0 || chs[0].(map[string]any)["finish_reason"] == nil {
					continue
				}
				if _, has := ev["usage"].(map[string]any); has != want || !done {
					t.Fatalf("finish chunk %v ([DONE] %v): want usage %v", ev, done, want)
				}
				return
			}
			t.Fatal("no finish chunk")
		}
	}
	// midUsage: with include_usage, what the chunks before the usage chunk
	// say (nil: "usage":null), and the usage chunk has the real counts.
	midUsage := func(want any) check {
		return func(t *testing.T, r result) {
			status(200)(t, r)
			events, _ := sse(t, r.body)
			last := events[len(events)-1]
			if u, _ := last["usage"].(map[string]any); u == nil || u["completion_tokens"] == 0.0 || len(last["choices"].([]any)) != 0 {
				t.Fatalf("last chunk %v: want the usage and no choices", last)
			}
			for _, ev := range events[:len(events)-1] {
				if got, ok := ev["usage"]; !ok || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("chunk %v: usage %v, want %v", ev, got, want)
				}
			}
		}
	}
	zero := map[string]any{"prompt_tokens": 0.0, "completion_tokens": 0.0, "total_tokens": 0.0}
	withUsage := `"stream":true,"stream_options":{"include_usage":true}`
	raw := `"Once upon a time there was a test"` // 8 tokens
	type row struct {
		method, path, body string
		check              check
	}
	cases := map[Profile]map[string]row{
		ProfileSim: {
			"missing model":    {"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, errBody(400, map[string]any{"error.param": nil, "error.type": "invalid_request_error", "error.message": "you must provide a model parameter"})},
			"unknown model":    {"POST", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, errBody(404, map[string]any{"error.code": "model_not_found"})},
			"max_tokens 0":     {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","max_tokens":0}`, notCut},
			"completions raw":  {"POST", "/v1/completions", `{"model":"llm-sim","prompt":` + raw + `}`, promptTokensAre(8)},
			"stream usage":     {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","stream":true}`, usageOnFinish(false)},
			"usage null":       {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a",` + withUsage + `}`, midUsage(nil)},
			"max_model_len":    {"GET", "/v1/models", "", errBody(200, map[string]any{"data.0.max_model_len": 100.0})},
			"tokenize":         {"POST", "/tokenize", `{"prompt":"a"}`, status(200)},
			"refusal is null":  {"POST", "/v1/chat/completions", chatBody("hi", ""), errBody(200, map[string]any{"choices.0.message.refusal": nil})},
			"n=2 is refused":   {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","n":2}`, status(400)},
			"overflow refused": {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"` + words(200) + `"}`, errBody(400, map[string]any{"object": "error", "type": "BadRequestError"})},
		},
		ProfileVLLM: {
			"missing model":             {"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, status(200)},
			"unknown model":             {"POST", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, errBody(404, map[string]any{"object": "error", "type": "NotFoundError", "code": 404.0, "message": "The model `gpt-9` does not exist."})},
			"bad request body":          {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","stop":[1]}`, errBody(400, map[string]any{"object": "error", "type": "BadRequestError", "code": 400.0})},
			"max_tokens 0":              {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","max_tokens":0}`, errBody(400, map[string]any{"message": "max_tokens must be at least 1, got 0."})},
			"max_completion_tokens":     {"POST", "/v1/chat/completions", chatBody("tell me a story", `"max_completion_tokens":3`), replyCutAt(3)},
			"injected 500 in its shape": {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"fault 500"}`, errBody(500, map[string]any{"object": "error", "type": "InternalServerError"})},
			"tokenize":                  {"POST", "/tokenize", `{"prompt":"a b"}`, errBody(200, map[string]any{"count": 2.0, "max_model_len": 100.0})},
		},
		ProfileOllama: {
			"missing model":                    {"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, errBody(400, map[string]any{"error.type": "invalid_request_error", "error.message": "model is required"})},
			"unknown model":                    {"POST", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, errBody(404, map[string]any{"error.type": "not_found_error", "error.message": `model "gpt-9" not found, try pulling it first`, "error.code": nil})},
			"max_tokens 0 is unlimited":        {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","max_tokens":0}`, notCut},
			"max_completion_tokens":            {"POST", "/v1/chat/completions", chatBody("tell me a story", `"max_completion_tokens":3`), notCut},
			"max_tokens":                       {"POST", "/v1/chat/completions", chatBody("tell me a story", `"max_tokens":3`), replyCutAt(3)},
			"n=2 answered once":                {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","n":2}`, notCut},
			"zero usage on completions chunks": {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a",` + withUsage + `}`, midUsage(zero)},
			"but not on chat chunks":           {"POST", "/v1/chat/completions", chatBody("a", withUsage), midUsage(nil)},
			"completions templated":            {"POST", "/v1/completions", `{"model":"llm-sim","prompt":` + raw + `}`, promptTokensAre(8 + ollamaTemplateTokens)},
			"no tokenize":                      {"POST", "/tokenize", `{"prompt":"a"}`, status(404)},
			"no max_model_len":                 {"GET", "/v1/models/llm-sim", "", errBody(200, map[string]any{"max_model_len": absent, "id": "llm-sim"})},
			"overflow truncated silently":      {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"` + words(200) + `"}`, promptTokensAre(100)},
		},
		ProfileLlamaCpp: {
			"missing model":       {"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, status(200)},
			"any model":           {"POST", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, status(200)},
			"any model info":      {"GET", "/v1/models/gpt-9", "", status(200)},
			"bad request body":    {"POST", "/v1/completions", `{"prompt":"a","stop":[1]}`, errBody(400, map[string]any{"error.code": 400.0, "error.type": "invalid_request_error"})},
			"completions stream":  {"POST", "/v1/completions", `{"prompt":"a","stream":true}`, usageOnFinish(true)},
			"chat stream":         {"POST", "/v1/chat/completions", chatBody("a", `"stream":true`), usageOnFinish(true)},
			"tokenize content":    {"POST", "/tokenize", `{"content":"a b c"}`, status(200)},
			"overflow refused":    {"POST", "/v1/completions", `{"prompt":"` + words(200) + `"}`, errBody(400, map[string]any{"error.type": "exceed_context_size_error"})},
			"max_tokens 0 is off": {"POST", "/v1/completions", `{"prompt":"a","max_tokens":0}`, notCut},
		},
		ProfileOpenAI: {
			"missing model":    {"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, errBody(400, map[string]any{"error.message": "you must provide a model parameter"})},
			"unknown model":    {"POST", "/v1/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, errBody(404, map[string]any{"error.code": "model_not_found"})},
			"max_tokens 0":     {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","max_tokens":0}`, status(400)},
			"no tokenize":      {"POST", "/tokenize", `{"prompt":"a"}`, status(404)},
			"stream usage":     {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"a","stream":true}`, usageOnFinish(false)},
			"overflow refused": {"POST", "/v1/completions", `{"model":"llm-sim","prompt":"` + words(200) + `"}`, errBody(400, map[string]any{"error.code": "context_length_exceeded"})},
		},
	}
	for p, rows := range cases {
		plan := func(_ uint64, req *Request) Fault {
			if strings.HasPrefix(req.Text(), "fault 500") {
				return Fault500
			}
			return NoFault
		}
		_, url := start(t, Options{Skill: 1, Profile: p, MaxModelLen: 100, FaultPlan: plan})
		base := strings.TrimSuffix(url, "/v1")
		for name, c := range rows {
			t.Run(fmt.Sprintf("%s/%s", cmp.Or(string(p), "sim"), name), func(t *testing.T) {
				req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
				c.check(t, do(req))
			})
		}
	}
}

// FuzzCounts: /tokenize's ids are exactly the tokens usage counts, and a cut
// from the front (Ollama's truncation) keeps a suffix of the text whose count
// drops by exactly the pieces cut.
func FuzzCounts(f *testing.F) {
	for _, s := range []string{"", "hello world", "  a\n\n\tb 123456 ----", "日本語 naïve", "x  ", words(30)} {
		f.Add(s, 3)
	}
	s, cut := New(Options{}), New(Options{MaxModelLen: MinModelLen, Overflow: OverflowTruncate})
	llama := New(Options{MaxModelLen: MinModelLen, Overflow: OverflowTruncate, Profile: ProfileLlamaCpp})
	f.Fuzz(func(t *testing.T, text string, k int) {
		k = max(0, k)
		n := EstimateTokens(text)
		if got := len(pieceIDs(nil, text)); got != n {
			t.Fatalf("%d ids for %d tokens", got, n)
		}
		msgs := []Message{{Role: "system", Content: text}, {Role: "user", Content: text + "?"}}
		if ids, pt := messageIDs(msgs, true), s.promptTokens(&Request{Chat: true, Messages: msgs}); len(ids) != pt {
			t.Fatalf("%d chat ids, usage %d", len(ids), pt)
		}
		if pt := s.promptTokens(&Request{Prompt: text}); pt != n {
			t.Fatalf("completions usage %d, %d tokens", pt, n)
		}
		chat := &Request{Chat: true, Messages: append(msgs, Message{Role: "user", Content: strings.Repeat(text, 1+k%7)})}
		if pt := cut.promptTokens(chat); pt > MinModelLen {
			// Whole older messages go first, never the system message nor
			// the last; what still does not fit is cut to exactly the
			// context, from the front.
			short, got := cut.truncatePrompt(chat, pt)
			last := short.Messages[len(short.Messages)-1].Content
			if got > MinModelLen || got != cut.promptTokens(short) || short.Messages[0].Role != "system" || !strings.HasSuffix(chat.Messages[2].Content, last) {
				t.Fatalf("cut %d tokens to %d, %d messages, last %q", pt, got, len(short.Messages), last)
			}
			if got < MinModelLen && (len(short.Messages) != 2 || short.Messages[0] != msgs[0] || last != chat.Messages[2].Content) {
				t.Fatalf("cut %d tokens to %d, under the context, but not by whole messages: %q", pt, got, short.Messages)
			}
		}
		if pt := llama.promptTokens(chat); pt > MinModelLen {
			short, got := llama.truncatePrompt(chat, pt)
			if got > MinModelLen || llama.promptTokens(short) > got || got < MinModelLen && got != llama.promptTokens(short) {
				t.Fatalf("llama.cpp: cut %d tokens to %d, %d messages", pt, got, len(short.Messages))
			}
		}
		k %= n + 2
		rest := dropPieces(text, k)
		if !strings.HasSuffix(text, rest) || EstimateTokens(rest) != max(0, n-k) {
			t.Fatalf("dropping %d of %d tokens left %q (%d tokens)", k, n, rest, EstimateTokens(rest))
		}
	})
}

// lib/oai keeps the last usage of a stream, so Ollama's zeroed usage on
// every completions chunk does not reach infer-batch's records.
func TestOllamaStreamUsageReachesClient(t *testing.T) {
	_, url := start(t, Options{Skill: 1, Profile: ProfileOllama})
	comp, kind := classify(t, url, "/completions", `{"model":"llm-sim","prompt":"Once upon a time there was a test","stream":true,"stream_options":{"include_usage":true}}`)
	if kind != "" || !comp.HasUsage || comp.Usage.PromptTokens != 8+ollamaTemplateTokens || comp.Usage.CompletionTokens != EstimateTokens(comp.Text) {
		t.Fatalf("kind %q, usage %+v (has %v) for %q", kind, comp.Usage, comp.HasUsage, comp.Text)
	}
}
