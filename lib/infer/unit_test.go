package infer

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/tokens"
)

func TestBackoff(t *testing.T) {
	o := Defaults()
	o.RetryBase, o.RetryMaxWait, o.RetryAfterMax = 100*time.Millisecond, time.Second, 5*time.Second
	if d := backoff(1, 3*time.Second, &o); d != 3*time.Second {
		t.Errorf("Retry-After 3s: waited %v", d)
	}
	if d := backoff(1, time.Hour, &o); d != 5*time.Second {
		t.Errorf("Retry-After 1h: waited %v, want the 5s cap", d)
	}
	for n := 1; n <= 40; n++ {
		ceil := min(o.RetryBase<<min(n-1, 30), o.RetryMaxWait)
		for i := 0; i < 50; i++ {
			if d := backoff(n, 0, &o); d < 0 || d > ceil {
				t.Fatalf("retry %d: %v outside [0, %v]", n, d, ceil)
			}
		}
	}
}

func TestLimiterAIMD(t *testing.T) {
	l := newLimiter(8, true)
	l.cooldown = 0
	now := time.Now()
	l.throttled(now)
	if _, limit, _ := l.state(); limit != 6 {
		t.Fatalf("after a 429: limit %d, want 6", limit)
	}
	l.throttled(now.Add(time.Millisecond))
	l.throttled(now.Add(2 * time.Millisecond))
	_, limit, lowest := l.state()
	if limit != 3 || lowest != 3 {
		t.Fatalf("after three 429s: limit %d lowest %d", limit, lowest)
	}
	for i := 0; i < 3+4+5+6+7; i++ {
		l.succeeded(now.Add(time.Second))
	}
	if _, limit, _ := l.state(); limit != 8 {
		t.Fatalf("after recovery: limit %d, want 8", limit)
	}
	// A burst of 429s within the cooldown is one cut.
	l.cooldown = time.Minute
	l.throttled(now.Add(2 * time.Minute))
	l.throttled(now.Add(2*time.Minute + time.Second))
	if _, limit, _ := l.state(); limit != 6 {
		t.Fatalf("burst: limit %d, want 6", limit)
	}
	fixed := newLimiter(4, false)
	fixed.throttled(now)
	if _, limit, _ := fixed.state(); limit != 4 {
		t.Fatalf("non-adaptive limit moved to %d", limit)
	}
}

func TestLimiterBoundsAndFIFO(t *testing.T) {
	l := newLimiter(2, false)
	ctx := context.Background()
	l.acquire(ctx)
	l.acquire(ctx)
	order := make(chan int, 2)
	started := make(chan struct{})
	go func() {
		close(started)
		l.acquire(ctx)
		order <- 1
	}()
	<-started
	for {
		l.mu.Lock()
		n := len(l.waiters)
		l.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	go func() { l.acquire(ctx); order <- 2 }()
	for {
		l.mu.Lock()
		n := len(l.waiters)
		l.mu.Unlock()
		if n == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if in, _, _ := l.state(); in != 2 {
		t.Fatalf("in flight %d", in)
	}
	l.release()
	if got := <-order; got != 1 {
		t.Fatalf("first waiter served second")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.acquire(cctx); err == nil {
		t.Fatal("acquire on a full limiter with a cancelled context succeeded")
	}
	l.release()
	<-order
}

func TestBucketOverdraw(t *testing.T) {
	b := newBucket(60) // 1 per second, bucket of 1
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.take(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	// The bucket is empty: the next request has to wait, and a cancelled
	// context ends the wait.
	if err := b.take(ctx, 1); err == nil {
		t.Fatal("second request in the same second did not wait")
	}
	big := newBucket(600)
	if err := big.take(context.Background(), 1000); err != nil {
		t.Fatal("an oversized request must go when the bucket is not in debt")
	}
	if big.tokens > -980 {
		t.Fatalf("debt not recorded: %v", big.tokens)
	}
	var nilBucket *bucket
	if nilBucket.take(context.Background(), 5) != nil {
		t.Fatal("no limit must not wait")
	}
}

func TestBalancer(t *testing.T) {
	b := newBalancer([]string{"http://a/v1", "http://b/v1", "http://c/v1"}, 2, time.Second, slog.New(slog.DiscardHandler))
	now := time.Now()
	x, y, z := b.pick(nil, now), b.pick(nil, now), b.pick(nil, now)
	if x == y || y == z || x == z {
		t.Fatalf("least in flight: picked %s %s %s", x.label, y.label, z.label)
	}
	b.done(y, true, now)
	if got := b.pick(nil, now); got != y {
		t.Fatalf("picked %s, want the idle %s", got.label, y.label)
	}
	b.done(x, true, now)
	b.done(y, true, now)
	b.done(z, true, now)
	// Two failures pause an endpoint; the others take the load.
	a := b.eps[0]
	for i := 0; i < 2; i++ {
		a.inflight++
		b.done(a, false, now)
	}
	for i := 0; i < 20; i++ {
		ep := b.pick(nil, now)
		if ep == a {
			t.Fatal("paused endpoint picked")
		}
		b.done(ep, true, now)
	}
	if got := b.pick(b.eps[1], now); got == b.eps[1] || got == a {
		t.Fatalf("avoid: picked %s", got.label)
	} else {
		b.done(got, true, now)
	}
	// After the pause one probe goes there; its failure doubles the pause.
	later := now.Add(1500 * time.Millisecond)
	if p := b.pick(nil, later); p != a {
		t.Fatalf("no probe after the pause: picked %s", p.label)
	}
	if p := b.pick(nil, later); p == a {
		t.Fatal("two probes at once")
	} else {
		b.done(p, true, later)
	}
	b.done(a, false, later)
	if !a.pausedUntil.Equal(later.Add(2 * time.Second)) {
		t.Fatalf("pause after a failed probe until %v, want %v", a.pausedUntil, later.Add(2*time.Second))
	}
	// All paused: the least bad one is used rather than waiting forever.
	for _, ep := range b.eps {
		ep.pausedUntil = later.Add(time.Hour)
	}
	if b.pick(nil, later) == nil {
		t.Fatal("nothing picked with all endpoints paused")
	}
}

func newTestEngine(t *testing.T, mutate func(*Options)) *engine {
	t.Helper()
	o := Defaults()
	o.BaseURLs = []string{"http://127.0.0.1:1/v1"}
	mutate(&o)
	return &engine{opt: o, model: "m"}
}

// built builds a request as the engine does.
func (e *engine) built(req []byte) (*call, *record.Error) {
	c := &call{req: req}
	if re := e.build(context.Background(), c, false); re != nil {
		return nil, re
	}
	return c, nil
}

func TestBuild(t *testing.T) {
	e := newTestEngine(t, func(*Options) {})
	c, re := e.built([]byte(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"top_k":3,"model":"other"}`))
	if re != nil {
		t.Fatal(re)
	}
	var got map[string]any
	if err := record.Unmarshal(c.joined(), &got); err != nil {
		t.Fatal(err)
	}
	if c.path != oai.PathChat || got["model"] != "m" || got["top_k"] != float64(3) || got["max_tokens"] != float64(5) || c.maxTokens != 5 || c.stream {
		t.Fatalf("%s %s", c.path, c.joined())
	}
	c, re = e.built([]byte(`{"prompt":"2+2=","max_completion_tokens":7,"stream":true}`))
	if re != nil || c.path != oai.PathCompletions || c.maxTokens != 7 || !c.stream {
		t.Fatalf("%+v %v", c, re)
	}
	es := newTestEngine(t, func(o *Options) { o.Stream = true })
	c, _ = es.built([]byte(`{"prompt":"x"}`))
	if !c.stream || !strings.Contains(string(c.joined()), `"stream_options":{"include_usage":true}`) {
		t.Fatalf("stream body %s", c.joined())
	}
	if c.tokenizer != "o200k_base~" || c.exact || c.promptTokens != 1 {
		t.Errorf("a prompt is counted with the estimate: %d by %q", c.promptTokens, c.tokenizer)
	}
	for _, bad := range []string{`[1]`, `{"max_tokens":3}`, `{"messages":"hi"}`, `{"messages":[]}`, `{"messages":[1]}`, `{"messages":[{"role":"user","content":"a"},"b"]}`} {
		if _, re := e.built([]byte(bad)); re == nil || re.Kind != oai.KindBadRequest {
			t.Errorf("%s: got %v", bad, re)
		}
	}
}

// The texts read from a request, without checking its JSON again at each
// level, are the texts a decoder reads, wherever quotes, backslashes and
// brackets fall in them.
func TestReadPromptTexts(t *testing.T) {
	for _, req := range []string{
		`{"messages":[{"role":"system","content":"say \"}\" or \\"},{"role":"user","content":"[{\"k\": \"v\\\\\"}] caf\u00e9 \ud83d\ude00"}],"max_tokens":3}`,
		` { "messages" : [ { "content" : [ {"type":"text","text":"a\"]"} , {"type":"image_url","image_url":{"url":"x"}}, {"type":"text","text":"b"} ] , "role" : "user" } ] } `,
		`{"n":1,"messages":[{"role":"user","content":null},{"role":"assistant","content":"\\"},{"role":"user","content":"\u005c\""}]}`,
	} {
		var decoded struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := record.Unmarshal([]byte(req), &decoded); err != nil {
			t.Fatal(err)
		}
		p, re := readPrompt(&call{req: []byte(req)})
		if re == nil {
			p.readTexts()
		}
		if re != nil || len(p.texts) != len(decoded.Messages) {
			t.Fatalf("%s: %v %q", req, re, p.texts)
		}
		for i, m := range decoded.Messages {
			var want string
			var parts []struct{ Text string }
			if record.Unmarshal(m.Content, &want) != nil && record.Unmarshal(m.Content, &parts) == nil {
				for _, part := range parts {
					want += part.Text
				}
			}
			if p.texts[i] != want {
				t.Errorf("%s: message %d read as %q, decoded %q", req, i, p.texts[i], want)
			}
		}
	}
}

// Without a check that needs it before sending, build leaves the count to
// the time the request is in flight while the vocabulary loads, once the
// first wave is out; the reply waits for the same count.
func TestBuildCountsWhileSent(t *testing.T) {
	req := []byte(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"` + strings.Repeat("count these words ", 500) + `"}]}`)
	eager, re := newTestEngine(t, func(*Options) {}).built(req)
	if re != nil || eager.promptTokens < 1000 || eager.countLater != nil {
		t.Fatalf("eager: %+v %v", eager, re)
	}
	e := newTestEngine(t, func(*Options) {})
	c := &call{req: req}
	if re := e.build(context.Background(), c, true); re != nil || c.countLater == nil || c.promptTokens != 0 {
		t.Fatalf("lazy: counted before sending (%d) or nothing left to count: %v", c.promptTokens, re)
	}
	// The count waits for the first wave to be out: in a bubble, once every
	// goroutine is blocked, it has not started (without the gate it would
	// have run to its end). A reply that needs it lets it run (awaitCount).
	synctest.Test(t, func(t *testing.T) {
		e.wave, e.reqCtx = make(chan struct{}), context.Background()
		count, started := c.countLater, false
		c.countLater = func(ctx context.Context) {
			started = true
			count(ctx)
		}
		e.countWhileSent(c)
		synctest.Wait()
		if started {
			t.Fatal("counted before the first wave was out")
		}
		e.awaitCount(c)
	})
	if c.promptTokens != eager.promptTokens || c.tokenizer != eager.tokenizer {
		t.Fatalf("counted while sent: %d by %q; before sending: %d by %q", c.promptTokens, c.tokenizer, eager.promptTokens, eager.tokenizer)
	}
	// Once the vocabulary is loaded, the builders count ahead of the slot.
	c = &call{req: req}
	if re := e.build(context.Background(), c, true); re != nil || c.countLater != nil || c.promptTokens != eager.promptTokens {
		t.Fatalf("lazy with the vocabulary loaded: %+v %v", c, re)
	}
	// --max-model-len checks the count before sending: nothing is left.
	mml := newTestEngine(t, func(o *Options) { o.MaxModelLen = 100000 })
	c = &call{req: req}
	if re := mml.build(context.Background(), c, true); re != nil || c.countLater != nil || c.promptTokens != eager.promptTokens {
		t.Fatalf("--max-model-len: %+v %v", c, re)
	}
}

// A long prompt is counted from its JSON (tokens.CountQuoted) as its text
// is counted, in chat and completions requests, and after a cut
// (--truncate-context) from the cut text.
func TestCountFromJSON(t *testing.T) {
	enc := tokens.MustGet(tokens.Default)
	var b strings.Builder
	for i := 0; b.Len() < 50<<10; i++ {
		fmt.Fprintf(&b, "line %d: \"quoted\" \\n and \tтекст 中文 😀\n", i)
		if i%7 == 0 {
			b.WriteString("  indented\n/ slash\n")
		}
	}
	text := b.String()
	quoted, _ := record.Marshal(text)
	system, _ := record.Marshal("be brief")
	for _, tt := range []struct {
		req  string
		want int
	}{
		{`{"messages":[{"role":"system","content":` + string(system) + `},{"role":"user","content":` + string(quoted) + `}]}`, 3 + enc.Count("be brief") + 4 + enc.Count(text) + 4},
		{`{"prompt":` + string(quoted) + `}`, enc.Count(text)},
	} {
		c, re := newTestEngine(t, func(*Options) {}).built([]byte(tt.req))
		if re != nil || c.promptTokens != tt.want {
			t.Fatalf("%.40s…: %d tokens (%v), want %d", tt.req, c.promptTokens, re, tt.want)
		}
	}
	// Cut to fit: the count is the cut text's.
	e := newTestEngine(t, func(o *Options) { o.MaxModelLen, o.TruncateContext = enc.Count(text)/2, true })
	withInstruction, _ := record.Marshal(text + "\n\nInstruction: say hi.")
	c, re := e.built([]byte(`{"prompt":` + string(withInstruction) + `}`))
	if re != nil {
		t.Fatalf("cut: %v", re)
	}
	if c.cut == 0 || c.promptTokens > enc.Count(text)/2 {
		t.Fatalf("cut: %d tokens, %d cut", c.promptTokens, c.cut)
	}
}

// The body is the request with model (and --stream's keys) set, whether
// they are put in front of the request's bytes or the request is re-encoded.
func TestBuildBody(t *testing.T) {
	for _, tt := range []struct {
		stream   bool
		req      string
		want     string
		isStream bool
	}{
		{false, `{"messages":[{"role":"user","content":"<a> & b"}],"n":1}`, `{"messages":[{"content":"<a> & b","role":"user"}],"model":"m","n":1}`, false},
		{false, " \n\t{ \"prompt\":\"x\" }\n", `{"model":"m","prompt":"x"}`, false},
		{false, `{"prompt":"x","model":"other"}`, `{"model":"m","prompt":"x"}`, false},
		{false, `{"prompt":"x","stream":true}`, `{"model":"m","prompt":"x","stream":true}`, true},
		{true, `{"prompt":"x"}`, `{"model":"m","prompt":"x","stream":true,"stream_options":{"include_usage":true}}`, true},
		{true, `{"prompt":"x","stream":false}`, `{"model":"m","prompt":"x","stream":true,"stream_options":{"include_usage":true}}`, true},
	} {
		e := newTestEngine(t, func(o *Options) { o.Stream = tt.stream })
		c, re := e.built([]byte(tt.req))
		if re != nil {
			t.Fatalf("%s: %v", tt.req, re)
		}
		var got any
		if err := record.Unmarshal(c.joined(), &got); err != nil {
			t.Fatalf("%s: body %s: %v", tt.req, c.joined(), err)
		}
		b, _ := record.Marshal(got)
		if string(b) != tt.want || c.stream != tt.isStream {
			t.Errorf("--stream=%v %s:\n got %s (stream %v)\nwant %s", tt.stream, tt.req, b, c.stream, tt.want)
		}
	}
}

func TestPreflight(t *testing.T) {
	o200k := tokens.MustGet(tokens.Default)
	ctx := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200) // ~2000 tokens
	prompt := "Read the documents.\n" + ctx + "\n\nInstruction: answer with the id of the fox.\n"
	body, _ := record.Marshal(map[string]any{"messages": []map[string]string{{"role": "system", "content": "be brief"}, {"role": "user", "content": prompt}}, "max_tokens": 100})

	reject := newTestEngine(t, func(o *Options) { o.MaxModelLen = 1000 })
	if _, re := reject.built(body); re == nil || re.Kind != oai.KindContextLength || !strings.Contains(re.Message, "not sent") {
		t.Fatalf("want a context_length error, got %v", re)
	}
	fits := newTestEngine(t, func(o *Options) { o.MaxModelLen = 100000 })
	if c, re := fits.built(body); re != nil || c.cut != 0 || c.promptTokens < 1900 {
		t.Fatalf("fits: %+v %v", c, re)
	}

	cut := newTestEngine(t, func(o *Options) { o.MaxModelLen = 1000; o.TruncateContext = true })
	c, re := cut.built(body)
	if re != nil {
		t.Fatal(re)
	}
	var sent struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	record.Unmarshal(c.joined(), &sent)
	user := sent.Messages[1].Content
	if !strings.HasSuffix(user, "\n\nInstruction: answer with the id of the fox.\n") || !strings.HasPrefix(user, "Read the documents.\nThe quick") {
		t.Fatalf("instruction or head lost: %q ... %q", user[:40], user[len(user)-60:])
	}
	if c.cut <= 0 || c.promptTokens+c.maxTokens > 1000 {
		t.Fatalf("cut %d, estimate now %d + %d", c.cut, c.promptTokens, c.maxTokens)
	}
	if total := o200k.Count(user) + o200k.Count("be brief") + 2*perMessageTokens + 3 + 100; total > 1000+5 {
		t.Fatalf("after the cut the prompt still has %d tokens", total)
	}

	// A model's tokenizer.json counts exactly and cuts with its own tokens.
	hf := newTestEngine(t, func(o *Options) {
		o.MaxModelLen, o.TruncateContext, o.Tokenizer = 1000, true, "../tokens/testdata/tiny-sentencepiece.json"
	})
	c, re = hf.built(body)
	if re != nil {
		t.Fatal(re)
	}
	enc := tokens.MustGet(hf.opt.Tokenizer)
	record.Unmarshal(c.joined(), &sent)
	n := 3 + 2*perMessageTokens + enc.Count(sent.Messages[0].Content) + enc.Count(sent.Messages[1].Content)
	if c.tokenizer != "hf:tiny-sentencepiece.json" || !c.exact || c.promptTokens != n || n+100 > 1000 || n+100 < 990 {
		t.Fatalf("tokenizer.json: %d tokens by %q (exact %v), recounted %d", c.promptTokens, c.tokenizer, c.exact, n)
	}

	// Without a marker or a blank line there is no instruction to keep.
	flat, _ := record.Marshal(map[string]any{"prompt": strings.Repeat("word ", 3000), "max_tokens": 10})
	if _, re := cut.built(flat); re == nil || re.Kind != oai.KindContextLength {
		t.Fatalf("unmarked prompt: %v", re)
	}
}

func TestCutContext(t *testing.T) {
	enc := tokens.MustGet(tokens.Default)
	tests := []struct {
		name, text, keepSuffix string
		n                      int
		fails                  bool
	}{
		{"last marker wins", "ctx Instruction: fake\nmore context here and there\nInstruction: real", "\nInstruction: real", 3, false},
		{"plural marker", "aaaa bbbb cccc dddd\n Instructions:do it", " Instructions:do it", 2, false},
		{"blank line fallback", "lots of context words here\n\nSummarise.", "\n\nSummarise.", 2, false},
		{"too short", "tiny\n\nInstruction: x", "", 50, true},
		{"no marker", "just one paragraph", "", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cutContext(enc, tt.text, tt.n, []string{"Instruction:", "Instructions:"})
			if tt.fails {
				if err == nil {
					t.Fatalf("want an error, got %q", got)
				}
				return
			}
			if err != nil || !strings.HasSuffix(got, tt.keepSuffix) {
				t.Fatalf("%q %v", got, err)
			}
			if cut := enc.Count(tt.text[:len(tt.text)-len(tt.keepSuffix)]) - enc.Count(got[:len(got)-len(tt.keepSuffix)]); cut < tt.n-1 {
				t.Fatalf("cut %d tokens, want %d", cut, tt.n)
			}
		})
	}
}

// Which earlier record answers an input record: the same fingerprinted bytes
// and, when --model is given, the same model; an answer beats an error.
func TestEarlierTake(t *testing.T) {
	const req = `{"messages":[{"role":"user","content":"q"}]}`
	for _, tt := range []struct {
		name, role, model string
		earlier           []string
		input             string
		want              string // the earlier record's "tag", or "" to send
		changed           bool
	}{
		{"same request", "", "", []string{`{"id":"a","tag":"old","request":` + req + `}`}, `{"id":"a","request":` + req + `}`, "old", false},
		{"request changed", "", "", []string{`{"id":"a","tag":"old","request":{"prompt":"x"}}`}, `{"id":"a","request":` + req + `}`, "", true},
		{"no request to compare: by id", "", "", []string{`{"id":"a","tag":"old"}`}, `{"id":"a","request":` + req + `}`, "old", false},
		{"not earlier", "", "", []string{`{"id":"b","tag":"old"}`}, `{"id":"a","request":` + req + `}`, "", false},
		{"other --model", "", "m2", []string{`{"id":"a","tag":"old","model":"m1","request":` + req + `}`}, `{"id":"a","request":` + req + `}`, "", true},
		{"same --model", "", "m1", []string{`{"id":"a","tag":"old","model":"m1","request":` + req + `}`}, `{"id":"a","request":` + req + `}`, "old", false},
		{"answer beats error", "", "", []string{
			`{"id":"a","tag":"err","model":"m0","request":` + req + `,"error":{"stage":"infer-batch","kind":"x","message":"y"}}`,
			`{"id":"a","tag":"ok","model":"m1","request":` + req + `}`}, `{"id":"a","request":` + req + `}`, "ok", false},
		{"judge: new response", "judge-", "", []string{`{"id":"a","tag":"old","request":` + req + `,"response":{"text":"x"}}`}, `{"id":"a","request":` + req + `,"response":{"text":"y"}}`, "", true},
		{"judge: same response", "judge-", "", []string{`{"id":"a","tag":"old","request":` + req + `,"response":{"text":"x"},"model":"mut"}`}, `{"id":"a","request":` + req + `,"response":{"text":"x"},"model":"mut"}`, "old", false},
		{"judge: other judge model", "judge-", "j2", []string{`{"id":"a","tag":"old","response":{"text":"x"},"judgement":{"judge":{"model":"j1"}}}`}, `{"id":"a","response":{"text":"x"}}`, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := &engine{opt: Options{Role: tt.role, Model: tt.model}}
			x, err := newEarlier(nil, "")
			if err != nil {
				t.Fatal(err)
			}
			defer x.close()
			for _, l := range tt.earlier {
				rec, err := record.Parse([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				k := e.keyOf(rec)
				if err := x.add(k.id, candidate{fp: k.fp, model: k.model, errored: rec.Errored()}, []byte(l)); err != nil {
					t.Fatal(err)
				}
			}
			x.w.Flush()
			in, _ := record.Parse([]byte(tt.input))
			old, _, changed, err := x.take(e, in)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if old != nil {
				got = old.String("tag")
			}
			if got != tt.want || changed != tt.changed {
				t.Fatalf("took %q (changed %v), want %q (changed %v)", got, changed, tt.want, tt.changed)
			}
			if again, _, _, _ := x.take(e, in); again != nil {
				t.Fatal("an id was taken twice")
			}
		})
	}
}

// A raw /v1/completions prompt counted far higher by the server went
// through a chat template (Ollama); the cut check itself is lib/cuts'.
func TestTemplatedCompletions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sent, got int
		exact     bool
		template  bool
	}{
		{"no usage reported", 4000, 0, true, false},
		{"exact: a BOS on completions", 9, 10, true, false},
		{"exact: Ollama's chat template on completions", 9, 35, true, true},
		{"estimate: a template on a short raw prompt", 9, 35, false, true},
		{"estimate: another vocabulary on a long prompt", 10000, 13000, false, false},
		{"a cut prompt", 4096, 2048, false, false},
	} {
		if got := templated(tc.sent, tc.got, tc.exact); got != tc.template {
			t.Errorf("%s: templated(%d, %d, %v) = %v", tc.name, tc.sent, tc.got, tc.exact, got)
		}
	}
}
