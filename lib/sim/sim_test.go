package sim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/record"
)

// start runs a server on 127.0.0.1:0 for the test.
func start(t *testing.T, opt Options) (*Server, string) {
	t.Helper()
	s := New(opt)
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A connection the client dialled but never used counts as active
		// for 5 s (net/http), which Close would wait for: close ours first.
		http.DefaultClient.CloseIdleConnections()
		s.Close()
	})
	return s, url
}

type result struct {
	status int
	header http.Header
	body   []byte
	err    error // transport or body read error
}

func post(t *testing.T, url, path, body string, hdr ...string) result {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(req)
}

func do(req *http.Request) result {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// chatResp is the non-streaming reply as a client decodes it.
type chatResp struct {
	Object            string `json:"object"`
	Model             string `json:"model"`
	SystemFingerprint string `json:"system_fingerprint"`
	Choices           []struct {
		Message struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			Reasoning string `json:"reasoning_content"`
		} `json:"message"`
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage usage `json:"usage"`
	Data  []struct {
		ID string `json:"id"`
	} `json:"data"`
	ID    string `json:"id"`
	Error *struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func decode(t *testing.T, r result) chatResp {
	t.Helper()
	if r.err != nil {
		t.Fatalf("request failed: %v", r.err)
	}
	var c chatResp
	if err := record.Unmarshal(r.body, &c); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, r.body)
	}
	return c
}

func (c chatResp) text() string {
	if len(c.Choices) == 0 {
		return ""
	}
	if c.Object == "text_completion" {
		return c.Choices[0].Text
	}
	return c.Choices[0].Message.Content
}

func chatBody(content string, extra string) string {
	b := `{"model":"llm-sim","messages":[{"role":"user","content":` + string(record.Quote(content)) + `}]`
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

func TestEndpoints(t *testing.T) {
	srv, url := start(t, Options{Models: []string{"m1", "m2"}, Skill: 1})
	type check func(t *testing.T, c chatResp)
	errCode := func(code string) check {
		return func(t *testing.T, c chatResp) {
			if c.Error == nil || c.Error.Message == "" || c.Error.Type == "" {
				t.Fatalf("want an OpenAI error body, got %+v", c)
			}
			if code != "" && (c.Error.Code == nil || *c.Error.Code != code) {
				t.Fatalf("error code %v, want %q", c.Error.Code, code)
			}
		}
	}
	reply := func(object, model string) check {
		return func(t *testing.T, c chatResp) {
			if c.Object != object || c.Model != model || c.SystemFingerprint != Fingerprint || len(c.Choices) != 1 || c.text() == "" {
				t.Fatalf("reply %+v", c)
			}
			u := c.Usage
			if u.PromptTokens <= 0 || u.CompletionTokens != EstimateTokens(c.text()) || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
				t.Fatalf("usage %+v for %q", u, c.text())
			}
		}
	}
	tests := []struct {
		name, method, path, body string
		status                   int
		check                    check
	}{
		{"chat", "POST", "/chat/completions", `{"model":"m2","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hello"}]}]}`, 200, reply("chat.completion", "m2")},
		{"chat without model", "POST", "/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 400, errCode("")},
		{"completions", "POST", "/completions", `{"model":"m1","prompt":"Once upon a time"}`, 200, reply("text_completion", "m1")},
		{"completions prompt list", "POST", "/completions", `{"model":"m1","prompt":["one prompt"]}`, 200, reply("text_completion", "m1")},
		{"models", "GET", "/models", "", 200, func(t *testing.T, c chatResp) {
			if len(c.Data) != 2 || c.Data[0].ID != "m1" || c.Data[1].ID != "m2" {
				t.Fatalf("models %+v", c.Data)
			}
		}},
		{"model", "GET", "/models/m2", "", 200, func(t *testing.T, c chatResp) {
			if c.ID != "m2" {
				t.Fatalf("model %+v", c)
			}
		}},
		{"unknown model", "POST", "/chat/completions", `{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, 404, errCode("model_not_found")},
		{"unknown model info", "GET", "/models/gpt-9", "", 404, errCode("model_not_found")},
		{"malformed", "POST", "/chat/completions", `{"messages":`, 400, errCode("")},
		{"not an object", "POST", "/chat/completions", `[1,2]`, 400, errCode("")},
		{"missing messages", "POST", "/chat/completions", `{"model":"m1"}`, 400, errCode("")},
		{"empty messages", "POST", "/chat/completions", `{"model":"m1","messages":[]}`, 400, errCode("")},
		{"message without role", "POST", "/chat/completions", `{"model":"m1","messages":[{"content":"hi"}]}`, 400, errCode("")},
		{"missing prompt", "POST", "/completions", `{"model":"m1"}`, 400, errCode("")},
		{"batched prompts", "POST", "/completions", `{"model":"m1","prompt":["a","b"]}`, 400, errCode("")},
		{"bad max_tokens", "POST", "/completions", `{"model":"m1","prompt":"a","max_tokens":-3}`, 400, errCode("")},
		{"n=2", "POST", "/completions", `{"model":"m1","prompt":"a","n":2}`, 400, errCode("")},
		{"bad stop", "POST", "/completions", `{"model":"m1","prompt":"a","stop":[1]}`, 400, errCode("")},
		{"GET chat", "GET", "/chat/completions", "", 405, errCode("method_not_allowed")},
		{"unknown path", "GET", "/embeddings", "", 404, errCode("not_found")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
			r := do(req)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if r.header.Get("x-llm-sim") != "true" {
				t.Fatalf("no x-llm-sim header: %v", r.header)
			}
			tc.check(t, decode(t, r))
		})
	}
	st := srv.Stats()
	if st.Requests != int64(len(tests)) || st.ByPath["other"] != 1 || st.ByPath["/v1/completions"] != 7 || st.ClientErrors != 15 || st.OK != 3 {
		t.Errorf("stats %+v", st)
	}
}

// sse reads a stream's events: the data lines, and whether it ended with [DONE].
func sse(t *testing.T, body []byte) (events []map[string]any, done bool) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		if done {
			t.Fatalf("event after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var ev map[string]any
		if err := record.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("bad event %q: %v", data, err)
		}
		events = append(events, ev)
	}
	return events, done
}

// streamed joins a stream's text (field "content", "reasoning_content" or
// "text") and returns the finish_reason and the usage chunk, if any.
func streamed(events []map[string]any, field string) (text, finish string, u map[string]any) {
	for _, ev := range events {
		if x, ok := ev["usage"].(map[string]any); ok {
			u = x
		}
		chs, _ := ev["choices"].([]any)
		for _, ch := range chs {
			c := ch.(map[string]any)
			if f, ok := c["finish_reason"].(string); ok {
				finish = f
			}
			if d, ok := c["delta"].(map[string]any); ok {
				s, _ := d[field].(string)
				text += s
			} else if s, ok := c[field].(string); ok {
				text += s
			}
		}
	}
	return
}

func TestStreamingMatchesWholeReply(t *testing.T) {
	_, url := start(t, Options{Skill: 1, Reasoning: ReasoningField})
	for _, tc := range []struct {
		path, body, field string
		includeUsage      bool
	}{
		{"/chat/completions", chatBody("tell me a story", ""), "content", true},
		{"/chat/completions", chatBody("tell me a story", ""), "content", false},
		{"/chat/completions", chatBody("tell me a story", `"max_tokens":7`), "content", true},
		{"/completions", `{"model":"llm-sim","prompt":"Once upon a time"}`, "text", true},
	} {
		t.Run(fmt.Sprintf("%s usage=%v %s", tc.path, tc.includeUsage, tc.body), func(t *testing.T) {
			whole := decode(t, post(t, url, tc.path, tc.body))
			sb := strings.TrimSuffix(tc.body, "}") + `,"stream":true`
			if tc.includeUsage {
				sb += `,"stream_options":{"include_usage":true}`
			}
			r := post(t, url, tc.path, sb+"}")
			if r.err != nil || r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("stream: %v %d %v", r.err, r.status, r.header)
			}
			events, done := sse(t, r.body)
			if !done {
				t.Fatal("stream did not end with [DONE]")
			}
			text, finish, u := streamed(events, tc.field)
			if text != whole.text() || finish != whole.Choices[0].FinishReason {
				t.Fatalf("streamed %q (%s), whole %q (%s)", text, finish, whole.text(), whole.Choices[0].FinishReason)
			}
			if tc.field == "content" {
				if rs, _, _ := streamed(events, "reasoning_content"); rs == "" || rs != whole.Choices[0].Message.Reasoning {
					t.Fatalf("streamed reasoning %q, whole %q", rs, whole.Choices[0].Message.Reasoning)
				}
			}
			if !tc.includeUsage {
				if u != nil {
					t.Fatalf("usage chunk without include_usage: %v", u)
				}
				return
			}
			last := events[len(events)-1]
			if chs := last["choices"].([]any); len(chs) != 0 || u == nil {
				t.Fatalf("last chunk should carry usage and no choices: %v", last)
			}
			if int(u["completion_tokens"].(float64)) != whole.Usage.CompletionTokens || int(u["prompt_tokens"].(float64)) != whole.Usage.PromptTokens {
				t.Fatalf("stream usage %v, whole %+v", u, whole.Usage)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	_, url := start(t, Options{Skill: 1})
	full := decode(t, post(t, url, "/chat/completions", chatBody("limits", ""))).text()
	pieces := Pieces(full)
	if len(pieces) < 10 {
		t.Fatalf("filler too short to test limits: %q", full)
	}
	stopAt := strings.TrimSpace(pieces[5])
	want5 := strings.Join(pieces[:5], "")
	tests := []struct {
		name, extra, text, finish string
	}{
		{"max_tokens", `"max_tokens":5`, want5, "length"},
		{"max_completion_tokens wins", `"max_tokens":50000,"max_completion_tokens":5`, want5, "length"},
		{"max_tokens above length", `"max_tokens":100000`, full, "stop"},
		{"stop string", `"stop":` + string(record.Quote(stopAt)), full[:strings.Index(full, stopAt)], "stop"},
		{"stop list, earliest wins", `"stop":["zzz-not-there",` + string(record.Quote(stopAt)) + `]`, full[:strings.Index(full, stopAt)], "stop"},
		{"max_tokens before stop", `"max_tokens":2,"stop":` + string(record.Quote(stopAt)), strings.Join(pieces[:2], ""), "length"},
		{"stop before max_tokens", `"max_tokens":9,"stop":` + string(record.Quote(stopAt)), full[:strings.Index(full, stopAt)], "stop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := decode(t, post(t, url, "/chat/completions", chatBody("limits", tc.extra)))
			if c.text() != tc.text || c.Choices[0].FinishReason != tc.finish {
				t.Fatalf("got %q (%s), want %q (%s)", c.text(), c.Choices[0].FinishReason, tc.text, tc.finish)
			}
			if c.Usage.CompletionTokens != EstimateTokens(tc.text) {
				t.Fatalf("completion_tokens %d for %q", c.Usage.CompletionTokens, tc.text)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	_, url := start(t, Options{Skill: 1, Seed: 7})
	_, other := start(t, Options{Skill: 1, Seed: 8})
	get := func(url, body string) string { return decode(t, post(t, url, "/chat/completions", body)).text() }
	a, b := get(url, chatBody("same prompt", "")), get(url, chatBody("same prompt", ""))
	if a != b {
		t.Fatalf("same request, different replies: %q vs %q", a, b)
	}
	// Different prompts, body seeds and server seeds vary the reply; over a
	// few prompts at least one must differ in each case.
	differs := func(f func(i int) (string, string)) bool {
		for i := range 5 {
			if x, y := f(i); x != y {
				return true
			}
		}
		return false
	}
	if !differs(func(i int) (string, string) {
		return get(url, chatBody(fmt.Sprint("p", i), "")), get(url, chatBody(fmt.Sprint("q", i), ""))
	}) {
		t.Error("different prompts always get the same reply")
	}
	if !differs(func(i int) (string, string) {
		return get(url, chatBody(fmt.Sprint("p", i), `"seed":1`)), get(url, chatBody(fmt.Sprint("p", i), `"seed":2`))
	}) {
		t.Error("the request seed does not change the reply")
	}
	if !differs(func(i int) (string, string) {
		return get(url, chatBody(fmt.Sprint("p", i), "")), get(other, chatBody(fmt.Sprint("p", i), ""))
	}) {
		t.Error("the server seed does not change the reply")
	}
}

func TestEffectiveSkill(t *testing.T) {
	tests := []struct {
		skill, decay float64
		tokens, full int
		want         float64
	}{
		{1, 0, 200000, 131072, 1},
		{0.8, 0, 1000, 131072, 0.8},
		{1, 0.5, 0, 131072, 1},
		{1, 0.5, 65536, 131072, 0.75},
		{1, 0.5, 131072, 131072, 0.5},
		{1, 0.5, 1 << 20, 131072, 0.5}, // decay stops at full length
		{0.8, 1, 32768, 131072, 0.6},
		{0.8, 1, 1000, 1000, 0},
		{1, 0.5, 65536, 0, 0.75}, // 0 means the default length
	}
	for _, tc := range tests {
		if got := EffectiveSkill(tc.skill, tc.decay, tc.tokens, tc.full); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("EffectiveSkill(%v, %v, %d, %d) = %v, want %v", tc.skill, tc.decay, tc.tokens, tc.full, got, tc.want)
		}
	}
}

// echoSolver recognises prompts that start with "ECHO" and reports what it was given.
type echoSolver struct{}

func (echoSolver) Name() string { return "echo" }

func (echoSolver) Solve(req *Request, p Params) (string, bool) {
	if !strings.HasPrefix(req.Text(), "ECHO") {
		return "", false
	}
	return fmt.Sprintf("skill=%.4f tokens=%d draw=%d model=%s max=%d", p.Skill, p.PromptTokens, p.Rand.IntN(1000), req.Model, req.MaxTokens), true
}

// declineSolver uses the RNG and declines, which must not change later replies.
type declineSolver struct{}

func (declineSolver) Name() string { return "decline" }

func (declineSolver) Solve(_ *Request, p Params) (string, bool) {
	p.Rand.IntN(10)
	return "", false
}

func TestSolver(t *testing.T) {
	opt := Options{Models: []string{"strong", "weak"}, ModelSkill: map[string]float64{"weak": 0.4}, Skill: 0.9, SkillDecay: 0.5, DecayTokens: 100, Solvers: []Solver{declineSolver{}, echoSolver{}}}
	s, url := start(t, opt)
	_, plain := start(t, Options{Models: []string{"strong", "weak"}, Skill: 0.9, SkillDecay: 0.5, DecayTokens: 100, Solvers: []Solver{echoSolver{}}})
	prompt := "ECHO " + strings.Repeat("word ", 49)
	req := &Request{Chat: true, Messages: []Message{{Role: "user", Content: prompt}}}
	pt := s.promptTokens(req)
	for _, tc := range []struct {
		model string
		skill float64
	}{{"strong", 0.9}, {"weak", 0.4}} {
		body := `{"model":"` + tc.model + `","max_tokens":100,"messages":[{"role":"user","content":"` + prompt + `"}]}`
		got := decode(t, post(t, url, "/chat/completions", body)).text()
		want := fmt.Sprintf("skill=%.4f tokens=%d", EffectiveSkill(tc.skill, 0.5, pt, 100), pt)
		if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "model="+tc.model+" max=100") {
			t.Errorf("%s: solver reply %q, want prefix %q", tc.model, got, want)
		}
		if tc.model == "strong" {
			if other := decode(t, post(t, plain, "/chat/completions", body)).text(); other != got {
				t.Errorf("a declining solver changed the reply: %q vs %q", got, other)
			}
		}
	}
	if c := decode(t, post(t, url, "/chat/completions", chatBody("not for the solver", ""))); strings.Contains(c.text(), "skill=") {
		t.Errorf("solver answered a prompt it does not recognise: %q", c.text())
	}
	if n := s.Stats().Solved["echo"]; n != 2 {
		t.Errorf("Stats.Solved[echo] = %d, want 2", n)
	}
}

func TestForcedFaults(t *testing.T) {
	_, url := start(t, Options{Skill: 1, RetryAfter: 2500 * time.Millisecond, StallFor: time.Millisecond})
	body := chatBody("fault", "")
	stream := chatBody("fault", `"stream":true`)
	for _, tc := range []struct {
		fault  Fault
		body   string
		status int
		check  func(t *testing.T, r result)
	}{
		{Fault429, body, 429, func(t *testing.T, r result) {
			if r.header.Get("Retry-After") != "3" || r.header.Get("retry-after-ms") != "2500" {
				t.Fatalf("Retry-After %q, retry-after-ms %q", r.header.Get("Retry-After"), r.header.Get("retry-after-ms"))
			}
			if c := decode(t, r); c.Error == nil || *c.Error.Code != "rate_limit_exceeded" {
				t.Fatalf("body %s", r.body)
			}
		}},
		{Fault500, body, 500, nil},
		{Fault503, stream, 503, func(t *testing.T, r result) {
			// As the queue-full 503: clients (the OpenAI SDKs) wait as told.
			if r.header.Get("Retry-After") != "3" || r.header.Get("retry-after-ms") != "2500" {
				t.Fatalf("Retry-After %q, retry-after-ms %q", r.header.Get("Retry-After"), r.header.Get("retry-after-ms"))
			}
		}},
		{FaultStall, body, 200, func(t *testing.T, r result) {
			if decode(t, r).text() == "" {
				t.Fatal("a stalled request should get its reply in the end")
			}
		}},
		{FaultReset, body, 0, func(t *testing.T, r result) {
			if r.err == nil {
				t.Fatalf("a reset should fail the request, got %d %s", r.status, r.body)
			}
		}},
		{FaultTruncate, body, 200, func(t *testing.T, r result) {
			if !errors.Is(r.err, io.ErrUnexpectedEOF) {
				t.Fatalf("a truncated body should end early, got err %v, body %s", r.err, r.body)
			}
		}},
		{FaultTruncate, stream, 200, func(t *testing.T, r result) {
			events, done := sse(t, r.body)
			if done {
				t.Fatal("a truncated stream must not end with [DONE]")
			}
			if _, finish, _ := streamed(events, "content"); finish != "" {
				t.Fatalf("a truncated stream sent finish_reason %q", finish)
			}
		}},
	} {
		t.Run(string(tc.fault)+" "+tc.body, func(t *testing.T) {
			r := post(t, url, "/chat/completions", tc.body, FaultHeader, string(tc.fault))
			if r.status != tc.status {
				t.Fatalf("status %d, want %d (err %v)", r.status, tc.status, r.err)
			}
			if r.status >= 400 {
				if c := decode(t, r); c.Error == nil {
					t.Fatalf("no error body: %s", r.body)
				}
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
	if r := post(t, url, "/chat/completions", body, FaultHeader, "teapot"); r.status != 400 {
		t.Errorf("unknown forced fault: status %d", r.status)
	}
}

func TestFaultRates(t *testing.T) {
	const n = 600
	mix, err := ParseFaultMix("429=2,500=1,503=1,reset=1,stall=1,truncate=1")
	if err != nil {
		t.Fatal(err)
	}
	s, url := start(t, Options{Skill: 1, FailRate: 0.3, Faults: mix, Seed: 3, StallFor: time.Microsecond})
	failed := 0
	for i := range n {
		r := post(t, url, "/completions", fmt.Sprintf(`{"model":"llm-sim","prompt":"same %d"}`, i%3))
		if r.err != nil || r.status != 200 {
			failed++
		}
	}
	st := s.Stats()
	total := int64(0)
	for _, v := range st.Faults {
		total += v
	}
	// Binomial(600, 0.3) has a standard deviation of about 11; allow 5 of them.
	if math.Abs(float64(total)-0.3*n) > 56 {
		t.Errorf("%d faults in %d requests, want about %d: %v", total, n, int(0.3*n), st.Faults)
	}
	// 429 has 2 of 7 weights, the others 1 each.
	for _, f := range FaultKinds {
		want := float64(total) * mix[f] / 7
		if math.Abs(float64(st.Faults[f])-want) > 5*math.Sqrt(want)+1 {
			t.Errorf("fault %s: %d, want about %.0f (%v)", f, st.Faults[f], want, st.Faults)
		}
	}
	// Stalls end in a full reply; every other fault fails the request.
	if want := int(total - st.Faults[FaultStall]); failed != want {
		t.Errorf("%d requests failed, want %d (%v)", failed, want, st.Faults)
	}
	if st.OK != int64(n-failed) || st.Requests != n || st.ByPath["/v1/completions"] != n {
		t.Errorf("stats %+v", st)
	}
}

func TestFaultSequenceIsSeeded(t *testing.T) {
	seq := func(seed uint64) string {
		_, url := start(t, Options{Skill: 1, FailRate: 0.5, Faults: FaultMix{Fault500: 1, Fault503: 1}, Seed: seed})
		var b strings.Builder
		for range 40 {
			fmt.Fprint(&b, post(t, url, "/completions", `{"model":"llm-sim","prompt":"retry me"}`).status, " ")
		}
		return b.String()
	}
	a, b := seq(1), seq(1)
	if a != b {
		t.Fatalf("same seed, different faults:\n%s\n%s", a, b)
	}
	if !strings.Contains(a, "200") || !strings.Contains(a, "500") || !strings.Contains(a, "503") {
		t.Fatalf("retries of one request should sometimes fail and sometimes succeed: %s", a)
	}
	if c := seq(2); c == a {
		t.Fatalf("another seed gave the same faults: %s", c)
	}
}

func TestFaultPlan(t *testing.T) {
	// Fail the first attempt of every prompt: a client that retries gets all replies.
	var mu sync.Mutex
	seen := map[string]bool{}
	plan := func(_ uint64, req *Request) Fault {
		mu.Lock()
		defer mu.Unlock()
		if seen[req.Text()] {
			return NoFault
		}
		seen[req.Text()] = true
		return Fault503
	}
	_, url := start(t, Options{Skill: 1, FaultPlan: plan})
	for i := range 3 {
		body := chatBody(fmt.Sprint("plan ", i), "")
		if r := post(t, url, "/chat/completions", body); r.status != 503 {
			t.Fatalf("first attempt: %d", r.status)
		}
		if r := post(t, url, "/chat/completions", body); r.status != 200 {
			t.Fatalf("second attempt: %d", r.status)
		}
	}
}

// gateSolver blocks every request until the gate opens, so tests can hold
// requests inside their concurrency slots.
type gateSolver struct{ gate chan struct{} }

func (gateSolver) Name() string { return "gate" }

func (g gateSolver) Solve(*Request, Params) (string, bool) {
	<-g.gate
	return "", false
}

// waitFor polls the stats until cond holds (the test's own timeout bounds it).
func waitFor(t *testing.T, s *Server, cond func(Stats) bool) {
	t.Helper()
	for !cond(s.Stats()) {
		time.Sleep(time.Millisecond)
	}
}

func TestConcurrencyCapAndQueue(t *testing.T) {
	const clients, limit = 12, 3
	g := gateSolver{make(chan struct{})}
	s, url := start(t, Options{Skill: 1, MaxConcurrency: limit, Solvers: []Solver{g}})
	var wg sync.WaitGroup
	statuses := make([]int, clients)
	for i := range clients {
		wg.Go(func() { statuses[i] = post(t, url, "/completions", `{"model":"llm-sim","prompt":"x"}`).status })
	}
	// All are either running (blocked in the solver) or queued.
	waitFor(t, s, func(st Stats) bool { return st.QueuePeak == clients-limit })
	if st := s.Stats(); st.MaxConcurrent != limit {
		t.Fatalf("max concurrent %d, want %d", st.MaxConcurrent, limit)
	}
	close(g.gate)
	wg.Wait()
	st := s.Stats()
	if st.MaxConcurrent != limit || st.QueuePeak != clients-limit || st.OK != clients {
		t.Fatalf("stats %+v", st)
	}
	for i, code := range statuses {
		if code != 200 {
			t.Fatalf("request %d: status %d", i, code)
		}
	}
}

// slowSolver stands for llm-sim's own work on a request (reading, parsing
// and counting a long prompt).
type slowSolver struct{ d time.Duration }

func (slowSolver) Name() string { return "slow" }

func (s slowSolver) Solve(*Request, Params) (string, bool) {
	time.Sleep(s.d)
	return "", false
}

// The latency counts from a request's arrival, so the server's own work is
// inside it, not added; a request that waited for a slot gets its whole
// latency from when the slot freed, so the capacity stays --max-concurrency
// per --latency.
func TestLatencyCountsFromArrival(t *testing.T) {
	const work, latency = 600 * time.Millisecond, 700 * time.Millisecond
	s, url := start(t, Options{Skill: 1, Latency: latency, MaxConcurrency: 1, Solvers: []Solver{slowSolver{work}}})
	begin := time.Now()
	var second time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		// Queued behind the first once it holds the only slot (a fixed
		// sleep here let a loaded machine send the second first).
		waitFor(t, s, func(st Stats) bool { return st.MaxConcurrent == 1 })
		post(t, url, "/completions", `{"model":"llm-sim","prompt":"b"}`)
		second = time.Since(begin)
	})
	post(t, url, "/completions", `{"model":"llm-sim","prompt":"a"}`)
	first := time.Since(begin)
	wg.Wait()
	// Work added to the latency takes at least work+latency; anything below
	// it is latency plus the machine's own delay, which a loaded machine
	// stretches (so the bound sits just under work+latency).
	if first < latency || first >= work+latency-50*time.Millisecond {
		t.Errorf("first request took %s: want its %s latency with the %s of work inside it", first, latency, work)
	}
	// The slot frees at least one latency after begin, and the queued
	// request's latency starts then. (Not first+latency: the client reads
	// the first reply a little after the server freed its slot.)
	if second < 2*latency {
		t.Errorf("the queued request ended %s after the start: want at least its whole latency %s after the slot freed, which is %s after the start at the earliest", second, latency, latency)
	}
}

func TestQueueBound(t *testing.T) {
	g := gateSolver{make(chan struct{})}
	s, url := start(t, Options{Skill: 1, MaxConcurrency: 1, MaxQueue: 1, Solvers: []Solver{g}})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { post(t, url, "/completions", `{"model":"llm-sim","prompt":"x"}`) })
	}
	waitFor(t, s, func(st Stats) bool { return st.QueuePeak == 1 })
	r := post(t, url, "/completions", `{"model":"llm-sim","prompt":"x"}`)
	if r.status != 503 || r.header.Get("Retry-After") == "" {
		t.Fatalf("over the queue bound: %d %v", r.status, r.header)
	}
	close(g.gate)
	wg.Wait()
	if st := s.Stats(); st.QueueFull != 1 || st.OK != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCloseEndsStalledAndQueuedRequests(t *testing.T) {
	// One request stalls, one is admitted and waits an hour for its first
	// token, one waits in the queue behind it: Close must end all three.
	s := New(Options{Skill: 1, StallFor: time.Hour, Latency: time.Hour, MaxConcurrency: 1})
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]result, 3)
	wg.Go(func() {
		results[0] = post(t, url, "/completions", `{"model":"llm-sim","prompt":"a"}`, FaultHeader, "stall")
	})
	wg.Go(func() { results[1] = post(t, url, "/completions", `{"model":"llm-sim","prompt":"b","stream":true}`) })
	waitFor(t, s, func(st Stats) bool { return st.MaxConcurrent == 1 && st.Faults[FaultStall] == 1 })
	wg.Go(func() { results[2] = post(t, url, "/completions", `{"model":"llm-sim","prompt":"c"}`) })
	waitFor(t, s, func(st Stats) bool { return st.QueuePeak == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, r := range results {
		if r.err == nil && r.status != 503 {
			t.Errorf("request %d after Close: %d %s", i, r.status, r.body)
		}
	}
	if st := s.Stats(); st.OK != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello world", []string{"Hello", " world"}},
		{"internationalization", []string{"internati", "onalizati", "on"}},
		{"12345678", []string{"123", "456", "78"}},
		{"a, b.", []string{"a", ",", " b", "."}},
		{"line\n\n  indented", []string{"line", "\n\n ", " indented"}},
		{"-----", []string{"----", "-"}},
		{"café 東京", []string{"caf", "é", " 東", "京"}},
		{"Привет", []string{"При", "вет"}},
		{"x  ", []string{"x", "  "}},
	}
	for _, tc := range tests {
		got := Pieces(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || EstimateTokens(tc.in) != len(tc.want) {
			t.Errorf("Pieces(%q) = %q (estimate %d), want %q", tc.in, got, EstimateTokens(tc.in), tc.want)
		}
	}
}

func TestParseFaultMix(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{"", "429=1,500=1,503=1,reset=1,stall=1,truncate=1,abort=1", false},
		{"all", "429=1,500=1,503=1,reset=1,stall=1,truncate=1,abort=1", false},
		{"429=2, reset", "429=2,reset=1", false},
		{"truncate=0.5,stall=0", "truncate=0.5", false},
		{"404", "", true},
		{"429=x", "", true},
		{"429=-1", "", true},
		{"429=0", "", true},
	}
	for _, tc := range tests {
		m, err := ParseFaultMix(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && m.String() != tc.want) {
			t.Errorf("ParseFaultMix(%q) = %v, %v; want %q (bad %v)", tc.in, m, err, tc.want, tc.bad)
		}
	}
}

func TestParseModels(t *testing.T) {
	models, skill, err := ParseModels([]string{"big", "small=0.3", "org/m:7b"})
	if err != nil || strings.Join(models, ",") != "big,small,org/m:7b" || len(skill) != 1 || skill["small"] != 0.3 {
		t.Fatalf("ParseModels: %v %v %v", models, skill, err)
	}
	for _, bad := range [][]string{{""}, {"a", "a"}, {"a=2"}, {"a=x"}} {
		if _, _, err := ParseModels(bad); err == nil {
			t.Errorf("ParseModels(%q) accepted", bad)
		}
	}
}

func TestLatencyOptionsStillAnswer(t *testing.T) {
	// Timing is not asserted (shared CPUs); the paced paths must produce the same reply.
	_, fast := start(t, Options{Skill: 1})
	_, slow := start(t, Options{Skill: 1, Latency: 5 * time.Millisecond, PrefillTPS: 1e6, TokensPerSec: 2000, MaxConcurrency: 2})
	for _, body := range []string{chatBody("pace", ""), chatBody("pace", `"stream":true`)} {
		a, b := post(t, fast, "/chat/completions", body), post(t, slow, "/chat/completions", body)
		if a.status != 200 || b.status != 200 {
			t.Fatalf("status %d %d", a.status, b.status)
		}
		if strings.Contains(body, "stream") {
			ea, _ := sse(t, a.body)
			eb, _ := sse(t, b.body)
			ta, _, _ := streamed(ea, "content")
			tb, _, _ := streamed(eb, "content")
			if ta != tb {
				t.Fatalf("paced stream differs: %q vs %q", ta, tb)
			}
		} else if decode(t, a).text() != decode(t, b).text() {
			t.Fatal("paced reply differs")
		}
	}
}

func TestValidate(t *testing.T) {
	good := DefaultOptions()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	good.MaxModelLen, good.Overflow, good.Profile = MinModelLen, OverflowTruncate, ProfileLlamaCpp
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, mod := range []func(*Options){
		func(o *Options) { o.Skill = 1.5 },
		func(o *Options) { o.SkillDecay = -0.1 },
		func(o *Options) { o.FailRate = 2 },
		func(o *Options) { o.ModelSkill = map[string]float64{"m": -1} },
		func(o *Options) { o.Latency = -time.Second },
		func(o *Options) { o.TokensPerSec = -1 },
		func(o *Options) { o.MaxConcurrency = -1 },
		func(o *Options) { o.MaxModelLen = MinModelLen - 1 },
		func(o *Options) { o.MaxModelLen = -1 },
		func(o *Options) { o.Overflow = "drop" },
		func(o *Options) { o.Profile = "tgi" },
	} {
		o := DefaultOptions()
		mod(&o)
		if o.Validate() == nil {
			t.Errorf("Validate accepted %+v", o)
		}
	}
}

func TestHitFollowsSkill(t *testing.T) {
	for _, skill := range []float64{0, 0.3, 1} {
		p := Params{Skill: skill, Rand: rand.New(rand.NewPCG(1, 2))}
		hits := 0
		for range 10000 {
			if p.Hit() {
				hits++
			}
		}
		// Binomial(10000, 0.3): standard deviation 46.
		if math.Abs(float64(hits)-skill*10000) > 250 {
			t.Errorf("skill %v: %d hits in 10000", skill, hits)
		}
	}
}

// BenchmarkChatCompletion measures the server's own CPU per request for an
// 8k-token prompt (no network, no latency model).
func BenchmarkChatCompletion(b *testing.B) {
	s := New(Options{Skill: 1})
	body := chatBody(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 800), `"max_tokens":64`)
	for _, stream := range []bool{false, true} {
		b.Run(fmt.Sprint("stream=", stream), func(b *testing.B) {
			bb := body
			if stream {
				bb = strings.TrimSuffix(body, "}") + `,"stream":true,"stream_options":{"include_usage":true}}`
			}
			b.SetBytes(int64(len(bb)))
			for b.Loop() {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(bb)))
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}

// BenchmarkLongPrompt measures the server's own CPU per request for a
// 455 KB (~100k-token) chat prompt, the load of bench/batch/run.sh long:
// on a 2-core machine every microsecond here is taken from the client
// under test.
func BenchmarkLongPrompt(b *testing.B) {
	s := New(Options{Skill: 1})
	text := strings.Repeat("the quick brown fox jumps over a lazy dog near the river bank ", 455000/62+1)[:455000]
	body := chatBody("7 "+text+"\n\nInstruction: summarise.", `"max_tokens":8`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
