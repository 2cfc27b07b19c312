package infer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/tokens"
)

// call is a request: read by the reading goroutine, then checked, built and
// counted (build) by the builders ahead of its slot (engine.buildAhead), and
// sent by the worker that holds the slot.
type call struct {
	req       []byte // the prepared body, without model
	head      []byte // sent before body: infer-batch's keys in front of req's own bytes
	body      []byte // the body to send (after head), set by build
	path      string
	stream    bool
	maxTokens int
	cut       int        // prompt tokens removed by --truncate-context
	key       *cache.Key // --cache: the key of body as sent (cached.go)
	// The request's settings a server may ignore (warned about once): n,
	// and max_completion_tokens when it is the only limit.
	n              int
	completionOnly bool
	// droppable: a chat with more than one message besides its system
	// messages, whose older ones a server may drop whole (cutcheck.go).
	droppable bool

	// The prompt's count as sent (response.prompt_tokens_sent), what counted
	// it (response.tokenizer) and whether that count is exact.
	promptTokens int
	tokenizer    string
	exact        bool
	// countLater counts the prompt when build left it (nothing checks the
	// count before sending); counted is closed once it has (countWhileSent).
	countLater func(context.Context)
	counted    chan struct{}
}

// countWhileSent starts the count build left for later, to run while the
// request is in flight, so the first requests of a run do not wait for the
// vocabulary to load (o200k's tables: ~90 ms of CPU; a tokenizer.json's
// ~0.5 s). The reply waits for it (awaitCount).
//
// The vocabulary is loaded, and the first wave counted, once that wave is
// out (firstWaveOut): -j requests in flight, the first reply, or the end of
// the input. Loaded at the start, it took the CPU the first wave needed to
// go out, on the two cores llm-sim's parsing shares: the 64th request of a
// wave of 455 KB prompts reached the server at 175–490 ms, now at 120–340
// ms, while the vocabulary loads in the 200 ms the wave waits.
func (e *engine) countWhileSent(c *call) {
	if c.countLater == nil || c.counted != nil {
		return
	}
	c.counted = make(chan struct{})
	go func() {
		defer close(c.counted)
		if e.wave != nil {
			select {
			case <-e.wave:
			case <-e.reqCtx.Done():
			}
		}
		c.countLater(e.reqCtx)
	}()
}

// awaitCount waits for the call's count, which a reply needs: the first
// wave is out by then (firstWaveOut).
func (e *engine) awaitCount(c *call) {
	e.firstWaveOut()
	if c.counted != nil {
		<-c.counted
	}
}

// firstWaveOut lets the counts left for later run (countWhileSent).
func (e *engine) firstWaveOut() {
	if e.wave != nil {
		e.waveOnce.Do(func() { close(e.wave) })
	}
}

// perMessageTokens approximates the chat template's tokens around each
// message (OpenAI documents 3–4; open models' templates are similar).
const perMessageTokens = 4

// build turns the request into the body to send: it checks that the body
// is a JSON object with messages (chat) or prompt (completions), counts the
// prompt's tokens (--tokenizer), checks them against --max-model-len and, if
// allowed, cuts the context until the count fits (fit). With lazy, a count
// that nothing checks before sending (no --max-model-len, no --tpm) is left
// to c.countLater while the local tokenizer is still loading; once it is
// loaded, counting here (ahead of the slot, on the builders) keeps the work
// out of the moment a wave of answers returns (measured: 0.92 of capacity
// and 250 MB against 0.915 and 400 MB when every count ran in flight).
func (e *engine) build(ctx context.Context, c *call, lazy bool) *record.Error {
	p, re := readPrompt(c)
	if re != nil {
		return re
	}
	switch {
	case c.path == oai.PathCompletions && !p.isString:
		// Token ids or a batch of prompts: bytes/4 is all we can say.
		c.promptTokens, c.tokenizer = len(p.obj.Raw("prompt"))/4, "bytes/4~"
	case lazy && e.opt.MaxModelLen == 0 && e.tpm == nil && e.srv == nil && !e.encReady.Load():
		// Nothing reads p after build but this count.
		c.countLater = func(ctx context.Context) { e.count(ctx, c, p) }
	default:
		e.count(ctx, c, p)
	}
	if re := e.fit(ctx, c, p); re != nil {
		return re
	}
	return e.body(c, p)
}

// parsedReq is a request read in place: decoding it would copy a 455 KB
// prompt several times. Only a request that must change (a cut context, a
// model or stream field to replace) is decoded (decode).
type parsedReq struct {
	obj *record.Record
	// contents are the chat messages' contents as JSON, or the prompt's,
	// which the local tokenizer counts (CountQuoted); their texts are
	// unquoted only for a count that needs them (--tokenizer server, a
	// content of parts) or a cut (readTexts).
	contents [][]byte
	texts    []string // chat: each message's text
	prompt   string   // completions: the prompt, when it is a string
	isString bool
	read     bool // readTexts has run
	// m is the request decoded, once it must change; msgs its messages.
	m    map[string]json.RawMessage
	msgs []map[string]json.RawMessage
}

// readPrompt finds the endpoint, the prompt's texts and max_tokens. The
// request was checked as JSON already (prepare takes it from a parsed
// record, or marshals it): its levels are read without checking a 455 KB
// prompt again at each.
func readPrompt(c *call) (*parsedReq, *record.Error) {
	obj, err := record.CheckedObject(c.req)
	if err != nil {
		return nil, &record.Error{Kind: oai.KindBadRequest, Message: "request is not a JSON object"}
	}
	p := &parsedReq{obj: obj}
	switch {
	case obj.Raw("messages") != nil:
		c.path = oai.PathChat
	case obj.Raw("prompt") != nil:
		c.path = oai.PathCompletions
	default:
		return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request has neither "messages" (chat) nor "prompt" (completions)`}
	}
	if c.path == oai.PathChat {
		msgs, err := record.CheckedElements(obj.Raw("messages"))
		if err != nil || len(msgs) == 0 {
			return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request "messages" is not a non-empty array of objects`}
		}
		p.contents = make([][]byte, len(msgs))
		others := 0
		for i, raw := range msgs {
			msg, err := record.CheckedObject(raw)
			if err != nil {
				return nil, &record.Error{Kind: oai.KindBadRequest, Message: `request "messages" is not a non-empty array of objects`}
			}
			p.contents[i] = msg.Raw("content")
			if msg.String("role") != "system" {
				others++
			}
		}
		c.droppable = others > 1
	} else if raw := obj.Raw("prompt"); raw[0] == '"' {
		// A string of valid JSON, which unquotes without an error.
		p.contents, p.isString = [][]byte{raw}, true
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if raw := obj.Raw(k); raw != nil {
			var n int
			if record.Unmarshal(raw, &n) == nil && n > 0 {
				c.maxTokens, c.completionOnly = n, k == "max_completion_tokens"
				break
			}
		}
	}
	if raw := obj.Raw("n"); raw != nil {
		record.Unmarshal(raw, &c.n)
	}
	return p, nil
}

// readTexts unquotes the contents, once.
func (p *parsedReq) readTexts() {
	if p.read {
		return
	}
	p.read = true
	switch {
	case p.isString:
		p.prompt, _ = record.CheckedUnquote(p.contents[0])
	default:
		p.texts = make([]string, len(p.contents))
		for i, raw := range p.contents {
			p.texts[i] = contentString(raw)
		}
	}
}

// quoted says whether every content (or the prompt) is a JSON string.
func (p *parsedReq) quoted() bool {
	for _, raw := range p.contents {
		if len(raw) == 0 || raw[0] != '"' {
			return false
		}
	}
	return len(p.contents) > 0
}

// messages is the chat request's messages as JSON, as sent.
func (p *parsedReq) messages() json.RawMessage {
	if p.m != nil {
		return p.m["messages"]
	}
	return p.obj.Raw("messages")
}

// decode decodes the request, once.
func (p *parsedReq) decode(c *call) *record.Error {
	if p.m != nil {
		return nil
	}
	if err := record.Unmarshal(c.req, &p.m); err != nil || p.m == nil {
		return &record.Error{Kind: oai.KindBadRequest, Message: "request is not a JSON object"}
	}
	if c.path == oai.PathChat && record.Unmarshal(p.m["messages"], &p.msgs) != nil {
		return &record.Error{Kind: oai.KindBadRequest, Message: `request "messages" is not a non-empty array of objects`}
	}
	return nil
}

// fit checks the count against --max-model-len and, with
// --truncate-context, cuts the longest message (or the prompt) until the
// count fits. The room a request needs follows the server's manners: the
// prompt and all of max_tokens (vLLM, SGLang, TGI, llama.cpp, OpenAI refuse
// less), or the prompt alone on Ollama, which answers a request whose
// max_tokens alone exceeds its context (it shifts the context while it
// generates; the cut check flags a reply that ran that far).
func (e *engine) fit(ctx context.Context, c *call, p *parsedReq) *record.Error {
	L := e.opt.MaxModelLen
	reserve := c.maxTokens
	if e.server().Ollama() {
		reserve = 0
	}
	if L <= 0 || c.promptTokens+reserve <= L {
		return nil
	}
	// The flags as this role spells them (judge: --judge-max-model-len).
	mml, tc := "--"+e.opt.Role+"max-model-len", "--"+e.opt.Role+"truncate-context"
	need := func() string {
		if reserve == 0 {
			return fmt.Sprintf("%s prompt tokens exceed %s %d", e.about(c), mml, L)
		}
		return fmt.Sprintf("%s prompt tokens + max_tokens %d exceed %s %d", e.about(c), reserve, mml, L)
	}
	if !e.opt.TruncateContext {
		return &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: %s (counted with %s); %s would cut the context", need(), c.tokenizer, tc)}
	}
	if c.path == oai.PathCompletions && !p.isString {
		return &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: %s, and a non-string prompt cannot be cut", need())}
	}
	p.readTexts()
	target := 0
	for i := range p.texts {
		if len(p.texts[i]) > len(p.texts[target]) {
			target = i
		}
	}
	before := c.promptTokens
	text := p.prompt
	if c.path == oai.PathChat {
		text = p.texts[target]
	}
	enc := e.encoder()
	// Cut, count again, and cut more until the count fits: the cutting
	// tokenizer (o200k_base for --tokenizer server) may count the text
	// differently from the one that counts the prompt, so each round
	// converts the excess with the ratio of the two counts.
	for round := 0; c.promptTokens+reserve > L; round++ {
		if round == 5 {
			return &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: after 5 cuts %s", need())}
		}
		excess := c.promptTokens + reserve - L
		ratio := 1.0
		if c.tokenizer != enc.Label() { // the server counts: convert its excess to local tokens
			if local := enc.Count(text); local > 0 && c.promptTokens > 0 {
				ratio = float64(local) / float64(c.promptTokens)
			}
		}
		n := int(float64(excess)*ratio) + round // a round that fell short cuts a little more
		cutText, err := cutContext(enc, text, max(n, 1), e.opt.ContextMarkers)
		if err != nil {
			return &record.Error{Kind: oai.KindContextLength, Message: fmt.Sprintf("not sent: %s, and %v", need(), err)}
		}
		text = cutText
		if re := p.decode(c); re != nil {
			return re
		}
		if c.path == oai.PathChat {
			p.texts[target] = text
			p.msgs[target]["content"] = record.Quote(text)
			b, _ := record.Marshal(p.msgs)
			p.m["messages"] = b
		} else {
			p.prompt = text
			p.m["prompt"] = record.Quote(text)
		}
		e.count(ctx, c, p)
	}
	c.cut = before - c.promptTokens
	return nil
}

// body sets what is sent: the request with this run's model (and stream
// options).
func (e *engine) body(c *call, p *parsedReq) *record.Error {
	obj := p.obj
	c.stream = e.opt.Stream || string(obj.Raw("stream")) == "true"
	if p.m == nil && obj.Raw("model") == nil && (!e.opt.Stream || obj.Raw("stream") == nil && obj.Raw("stream_options") == nil) {
		// Nothing to replace: the keys are sent in front of the request's
		// bytes, so a 455 KB prompt goes out of the record as it was read,
		// neither re-encoded nor copied.
		h := append(append(make([]byte, 0, len(e.model)+64), `{"model":`...), record.Quote(e.model)...)
		if e.opt.Stream {
			h = append(h, `,"stream":true,"stream_options":{"include_usage":true}`...)
		}
		c.head, c.body = append(h, ','), bytes.TrimLeft(c.req, " \t\r\n")[1:]
		return nil
	}
	if re := p.decode(c); re != nil {
		return re
	}
	m := p.m
	m["model"] = record.Quote(e.model)
	if e.opt.Stream {
		m["stream"] = json.RawMessage("true")
		m["stream_options"] = json.RawMessage(`{"include_usage":true}`)
	}
	b, err := record.Marshal(m)
	if err != nil {
		return &record.Error{Kind: oai.KindBadRequest, Message: "request: " + err.Error()}
	}
	c.body = b
	return nil
}

// joined is the whole body in one slice (a copy when it has a head).
func (c *call) joined() []byte {
	if c.head == nil {
		return c.body
	}
	return append(append(make([]byte, 0, len(c.head)+len(c.body)), c.head...), c.body...)
}

// about is a count for a message: exact, or "about N".
func (e *engine) about(c *call) string {
	if c.exact {
		return strconv.Itoa(c.promptTokens)
	}
	return "about " + strconv.Itoa(c.promptTokens)
}

// contentString is a message's text (checked JSON): a string, or its text
// parts joined.
func contentString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		s, _ := record.CheckedUnquote(raw)
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if record.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// cutContext removes n tokens from the right end of the context part of a
// prompt and keeps the instruction, as LIFBench does when a prompt does not
// fit (its context, the text before the instruction, is cut to the budget).
// The instruction starts at the last of the markers (LIFBench's templates say
// "Instruction:" or "Instructions:"); without a marker, the last paragraph
// (after the last blank line) is taken as the instruction. Only a string
// content can be cut, and only the text of the longest message (chat).
func cutContext(enc *tokens.Encoder, text string, n int, markers []string) (string, error) {
	at := -1
	for _, mk := range markers {
		if mk == "" {
			continue
		}
		if i := strings.LastIndex(text, mk); i > at {
			at = i
		}
	}
	if at < 0 {
		at = strings.LastIndex(text, "\n\n")
	}
	// The separator before the instruction ("\n\n") belongs to it.
	for at > 0 && strings.ContainsRune(" \t\r\n", rune(text[at-1])) {
		at--
	}
	if at <= 0 {
		return "", fmt.Errorf("no instruction marker (%s) or blank line to cut before", strings.Join(markers, ", "))
	}
	ctx, instr := text[:at], text[at:]
	kept, total := enc.DropLast(ctx, n)
	if total <= n {
		return "", fmt.Errorf("the context part has only %d tokens, %d would have to go", total, n)
	}
	return kept + instr, nil
}
