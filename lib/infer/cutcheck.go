package infer

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// The cut check in the engine (lib/cuts decides). Every record with a reply
// passes through the gate on its way to the output, in output order: the
// gate feeds the reply's counts to the checker and sets the record's
// response.server_truncated, cut_check and cut_margin from the checker's
// verdict. Because the checker sees the replies in output order (input
// order unless --unordered), its state at each record, and so every flag,
// follows the input, not the order in which replies arrived.
//
// A record already written cannot be changed, so the gate holds the first
// records back until the checker is settled (each estimate calibrated on
// 16 clean replies), up to holdMax records, then judges them and writes
// them; from then on each record is judged as it comes. A run shorter than
// that is judged whole at its end. The journal keeps each answer as it
// came, with the verdict of that moment; --resume judges it again here. The
// cache keeps a reply unless that early verdict saw a cut: a cut seen only
// later is flagged again whenever the cache serves the reply, since the
// cached usage says the same.

// holdMax bounds the records held back before the checker settles: at most
// this many answered records wait in memory beside the reorder window.
const holdMax = 256

type heldRecord struct {
	rec *record.Record
	s   *cuts.Sample
}

type outGate struct {
	e       *engine
	holding bool // still in the first phase; false once released
	seen    bool // a reply with usage was observed
	held    []heldRecord
}

func newOutGate(e *engine) *outGate { return &outGate{e: e, holding: true} }

// put takes the next record of the output (s: its reply's counts, nil
// when it has none) and writes what can be written.
func (g *outGate) put(rec *record.Record, s *cuts.Sample) error {
	chk := g.e.checker
	if s != nil {
		chk.Observe(*s)
		g.seen = g.seen || s.Got > 0
	}
	if !g.holding {
		return g.write(rec, s)
	}
	g.held = append(g.held, heldRecord{rec, s})
	if len(g.held) < holdMax && (!g.seen || !chk.Settled()) {
		return nil
	}
	return g.flush()
}

// flush writes the records held back, judged with what the checker knows
// now; the run's end calls it.
func (g *outGate) flush() error {
	g.holding = false
	held := g.held
	g.held = nil
	for _, h := range held {
		if err := g.write(h.rec, h.s); err != nil {
			return err
		}
	}
	return nil
}

func (g *outGate) write(rec *record.Record, s *cuts.Sample) error {
	if s != nil {
		g.e.mark(rec, s, g.e.checker.Judge(*s))
	}
	return g.e.r.Write(rec)
}

// mark counts a verdict and, for infer-batch, writes it into the record's
// response (a judge's call is not in its record: it is only counted).
func (e *engine) mark(rec *record.Record, s *cuts.Sample, v cuts.Verdict) {
	e.st.checked(v, s.Got)
	if v.Cut {
		if n := e.st.truncated(rec.ID()); n <= 5 {
			e.r.Log.Warn("the server cut the prompt ("+whyCut[v.Why]+"): the reply answers a shorter prompt; the record is flagged server_truncated. "+e.raiseContext(),
				"id", rec.ID(), "prompt_tokens", s.Got, "prompt_tokens_sent", s.Sent, "tokenizer", s.Tokenizer, "why", v.Why)
		}
	}
	if e.opt.Role != "" || !rec.Has("response") {
		return
	}
	resp, err := record.Object(rec.Raw("response"))
	if err != nil {
		return
	}
	if v.Cut {
		resp.Set("server_truncated", true)
	} else {
		resp.Delete("server_truncated")
	}
	resp.Set("cut_check", v.Check)
	if v.Margin > 0 {
		resp.Set("cut_margin", roundMargin(v.Margin))
	} else {
		resp.Delete("cut_margin")
	}
	rec.SetRaw("response", resp.AppendJSON(nil))
}

// roundMargin keeps three decimals: the margin is an estimate.
func roundMargin(m float64) float64 { return float64(int(m*1000+0.999)) / 1000 }

var whyCut = map[string]string{
	cuts.Short:     "it counted fewer prompt tokens than were sent",
	cuts.AtContext: "its count of the prompt fills its context",
	cuts.Shifted:   "the reply ran past the room the prompt left, so the context shifted while it generated",
}

// raiseContext is what to do about cut prompts on the server in use.
func (e *engine) raiseContext() string {
	switch {
	case e.server().Ollama():
		return "Raise Ollama's context (OLLAMA_CONTEXT_LENGTH, or num_ctx in a Modelfile) above the longest prompt + max_tokens"
	case e.server().Is(oai.ServerLlamaCpp):
		return "Raise llama.cpp's --ctx-size (it is split across --parallel slots)"
	case e.server().Is(oai.ServerSGLang):
		return "Start SGLang without --allow-auto-truncate and with a longer --context-length"
	}
	return "Give the server a longer context, or cut the prompts yourself with --max-model-len and --truncate-context"
}

// sample is what a reply says about the call's prompt.
func (c *call) sample(comp *oai.Completion) *cuts.Sample {
	return c.sampleUsage(comp.Usage, comp.HasUsage)
}

// sampleUsage is the call's counts with the usage of a reply (has: the
// reply reported one).
func (c *call) sampleUsage(u record.Usage, has bool) *cuts.Sample {
	s := &cuts.Sample{Sent: c.promptTokens, Tokenizer: c.tokenizer, Exact: c.exact, Droppable: c.droppable, MaxTokens: c.maxTokens}
	if has {
		s.Got, s.Completion = u.PromptTokens, u.CompletionTokens
	}
	return s
}

// sampleOf reads the counts of an earlier record (--resume, the records a
// --batch-api run kept), as its response and request hold them: nil when
// it has no reply, or for the judge (whose calls are not in the record).
func (e *engine) sampleOf(rec *record.Record) *cuts.Sample {
	if e.opt.Role != "" || !rec.Has("response") {
		return nil
	}
	var resp struct {
		Usage     record.Usage `json:"usage"`
		Sent      int          `json:"prompt_tokens_sent"`
		Tokenizer string       `json:"tokenizer"`
	}
	if rec.Decode("response", &resp) != nil {
		return nil
	}
	c := &call{req: rec.Raw("request"), promptTokens: resp.Sent, tokenizer: resp.Tokenizer,
		exact: resp.Tokenizer == TokenizerServer || strings.HasPrefix(resp.Tokenizer, "hf:")}
	readPrompt(c) // the request's messages and max_tokens; a bad one leaves them unset
	return c.sampleUsage(resp.Usage, resp.Usage.PromptTokens > 0)
}

// checkerServer is what the checker is told of the server: its manners by
// kind, and its context (the server's own, else --max-model-len).
func (e *engine) checkerServer() cuts.Server {
	s := e.server()
	srv := cuts.Server{Context: e.opt.MaxModelLen, ContextFrom: "--" + e.opt.Role + "max-model-len",
		Refuses: s.Refuses(), DropsMessages: !s.Refuses(), ReservesReply: s.Is(oai.ServerSGLang)}
	if s.Ollama() {
		srv.CutsToContext, srv.ShiftsContext = true, true
	}
	if s != nil && s.Context > 0 {
		if L := e.opt.MaxModelLen; L > 0 && L != s.Context {
			e.r.Log.Warn("--"+e.opt.Role+"max-model-len differs from the context the server reports: the pre-flight check uses the flag, the cut check the server's", "max_model_len", L, "server_context", s.Context, "from", s.ContextFrom)
		}
		srv.Context, srv.ContextFrom = s.Context, s.ContextFrom
	}
	return srv
}

// server is what the endpoint is: nil until the start-up check identified it.
func (e *engine) server() *oai.Server { return e.identified.Load() }

// identify asks the endpoint what it is (lib/oai.Identify) and tells the
// checker; resolveModel calls it once an endpoint answered.
func (e *engine) identify(base string, ms []oai.Model) {
	s := e.client.Identify(e.r.Ctx, base, e.model, ms, max(e.opt.ConnectTimeout, 10*time.Second))
	e.identified.Store(s)
	e.checker.SetServer(e.checkerServer())
	if !s.Known() && s.Context == 0 {
		return // nothing learned, nothing to say
	}
	attrs := []any{"endpoint", oai.Label(base), "server", s.Name()}
	if s.Context > 0 {
		attrs = append(attrs, "context", s.Context, "from", s.ContextFrom)
	}
	e.r.Log.Info("server", attrs...)
}

// loadedContext asks Ollama, once the first reply came (the model is then
// loaded), for the context it runs the model with (/api/ps); the checker
// takes it over a Modelfile's num_ctx or --max-model-len.
func (e *engine) loadedContext(ep *endpoint) {
	if !e.server().Ollama() {
		return
	}
	e.ctxOnce.Do(func() {
		n := e.client.LoadedContext(e.reqCtx, ep.base, e.model, max(e.opt.ConnectTimeout, 10*time.Second))
		if n <= 0 {
			return
		}
		e.checker.SetContext(n, "/api/ps context_length")
		e.r.Log.Info("context of the loaded model", "endpoint", ep.label, "context", n, "from", "/api/ps context_length")
	})
}

// ignored warns, once each, about a server that ignored n or
// max_completion_tokens (Ollama does both).
func (e *engine) ignored(c *call, comp *oai.Completion, id string) {
	if c.n > 1 && comp.Choices < 2 {
		e.nWarn.Do(func() {
			e.r.Log.Warn(fmt.Sprintf("the server ignored the request's n (%d): it answered one choice (Ollama does); infer-batch records the first choice only anyway", c.n), "id", id, "server", e.server().Name())
		})
	}
	if c.completionOnly && overran(c, comp) {
		e.mctWarn.Do(func() {
			e.r.Log.Warn("the server ignored max_completion_tokens (Ollama does): replies run to the server's own limit; give max_tokens", "id", id, "max_completion_tokens", c.maxTokens, "completion_tokens", comp.Usage.CompletionTokens, "server", e.server().Name())
		})
	}
}

// runaway says whether a reply stopped at finish_reason length by the
// server's own limit rather than the request's: the request set no
// max_tokens, or the server generated past the one it set, so ignored it
// (Ollama ignores max_completion_tokens, and asked for no limit stops at
// 10 × num_ctx: 20,480 tokens for a 2,048 context).
func runaway(c *call, comp *oai.Completion) bool {
	if comp.FinishReason != "length" {
		return false
	}
	return c.maxTokens == 0 || overran(c, comp)
}

// overran says whether a reply reports more completion tokens than the
// request allowed. No slack: a server that honours max_tokens stops there
// and counts every generated token once, a reasoning trace included (vLLM
// counts len(output.token_ids), its tags too; SGLang, llama.cpp, TGI and
// OpenAI the same), so completion_tokens never exceeds it. Speculative
// decoding overshoots only SGLang's reasoning_tokens, not completion_tokens,
// and Ollama's num_predict off-by-one gave one token fewer. The 16 tokens
// once allowed here covered llm-sim --reasoning field counting its trace
// and its answer apart, which counted their seam twice.
func overran(c *call, comp *oai.Completion) bool {
	return comp.HasUsage && comp.Usage.CompletionTokens > c.maxTokens
}

// exactHint says how to get exact cut detection on the server in use.
func (e *engine) exactHint() string {
	flag := "--" + e.opt.Role + "tokenizer"
	switch {
	case e.server().Ollama():
		return flag + " FILE with the model's tokenizer.json (Ollama has no tokenize API): `ollama show MODEL` names the model's family and size; download tokenizer.json from that model's Hugging Face repository (e.g. `huggingface-cli download Qwen/Qwen2.5-7B-Instruct tokenizer.json` for qwen2.5:7b)"
	case e.server().TokenizeAPI():
		return flag + " server (" + e.server().Name() + "'s tokenize API counts exactly as it does)"
	case e.server().Is(oai.ServerOpenAI):
		return flag + " o200k_base (the default) is exact for gpt-4o-class models; an older model wants its own encoding (cl100k_base)"
	}
	return flag + " server when the server has a tokenize API (vLLM, SGLang, llama.cpp, TGI), else " + flag + " FILE with the model's tokenizer.json"
}

// cutSummary says on stderr how the run's records were checked for cuts
// and, when some could not be checked exactly, how to check them exactly
// on the server in use.
func (e *engine) cutSummary(sum *Summary) {
	cc := sum.CutCheck
	if cc.Exact+cc.Calibrated+cc.Unchecked == 0 {
		return
	}
	attrs := []any{"exact", cc.Exact, "calibrated", cc.Calibrated, "unchecked", cc.Unchecked}
	if d := e.checker.Describe(); d != "" {
		attrs = append(attrs, "how", d)
	}
	e.r.Log.Info("cut check", attrs...)
	if cc.NoUsage > 0 {
		e.r.Log.Warn(fmt.Sprintf("cuts not checked on %d records: the server reported no usage, so nothing says whether it cut their prompts; have it report usage (vLLM, SGLang, TGI, llama.cpp and Ollama do by default; a proxy may drop it)", cc.NoUsage), "records", cc.NoUsage)
	}
	switch {
	case cc.Unchecked > cc.NoUsage:
		n := cc.Unchecked - cc.NoUsage
		e.r.Log.Warn(fmt.Sprintf("cuts not checked on %d records (the estimate was not calibrated: too few replies certainly not cut): a prompt the server cut by less than a quarter may be among them; for exact detection give %s", n, e.exactHint()), "records", n)
	case cc.Calibrated > 0:
		e.r.Log.Warn(fmt.Sprintf("cuts under %.0f %% of a prompt are not detectable with the calibrated estimate (%d records); for exact detection give %s", math.Ceil(100*cc.Margin), cc.Calibrated, e.exactHint()), "records", cc.Calibrated)
	}
}
