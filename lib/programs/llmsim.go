package programs

import (
	"cmp"
	"fmt"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/tokens"
	"github.com/urfave/cli/v2"
)

const simDescription = `llm-sim is a TEST DOUBLE, not a language model: it serves /v1/chat/completions,
/v1/completions (SSE streaming with usage), /v1/models and /tokenize so that ifkit's pipelines can be
tested, demonstrated and benchmarked without a real endpoint. Every reply carries the header
"x-llm-sim: true" and system_fingerprint "llm-sim"; reports made with it must say so.

It prints its base URL (http://127.0.0.1:PORT/v1) as the first line on stdout and logs to
stderr; --addr 127.0.0.1:0 picks a free port. SIGINT or SIGTERM stops it (exit 0).

Replies: prompts of a known benchmark are answered by its solver, correctly with probability
equal to the effective skill
    skill × (1 − skill-decay × min(1, prompt_tokens / skill-decay-tokens))
(with --skill-decay 0.5 a 128k-token prompt is answered at half the skill); other prompts get
20-60 words of deterministic filler. The same request (model, messages, seed) always gets
the same reply. max_tokens (or max_completion_tokens) cuts the reply (finish_reason
"length"); stop sequences end it (finish_reason "stop").

--reasoning inline|harmony|field: the model thinks first, as thinking models do, and the same
request still gets the same answer after the trace. The trace names what the benchmark's
scorer counts (its keywords, every question ID, a wrong draft in JSON, every entry with its
events, every answer marker with its evidence), so a run shows whether traces are scored;
--reasoning-len N makes it N tokens long, and max_tokens cuts trace and answer together.

Tokens are estimated, not counted with a real tokenizer (a one-pass approximation within
~15% of o200k on prose): words up to 9 letters, numbers by 3 digits, one per symbol.

Latency: a request waits for one of --max-concurrency slots (queueing as in vLLM), then
--latency (plus prompt_tokens / --prefill-tokens-per-sec) to the first token, then streams at
--tokens-per-sec; a non-streaming reply is sent when it is fully generated. With
--prefix-cache-tokens N the prompt tokens found in an LRU prefix cache of N tokens cost no
prefill; GET /metrics (Prometheus text) has prefix_cache_hit_tokens,
prefix_cache_reusable_tokens (what an unlimited cache would have hit), prompt_tokens,
requests_running and requests_waiting.

Batches: /v1/files (multipart upload with purpose=batch, content download) and /v1/batches
(create, retrieve, cancel, list) as OpenAI's, with its statuses validating → in_progress →
finalizing → completed (or failed, cancelling → cancelled); a batch's requests go through the
same latency model, concurrency cap, solvers and faults, and files are kept in memory.

Faults: a fraction --fail-rate of completion requests fail, the kind drawn by --faults weights
from an RNG seeded by --seed and the request's arrival number (so a retry may succeed):
429 and 503 (with Retry-After), 500, reset (connection closed with no response), stall
(nothing for --stall-for, then the reply), truncate (a stream without [DONE], or a body
shorter than its Content-Length), abort (Ollama's repetition guard: half the reply, then one
word 31 times, finish_reason null and zero usage; a stream ends cleanly after that text with
no finish chunk, no usage and no [DONE]). A request header "x-llm-sim-fault: KIND" forces one.

Context: --max-model-len N is the context (prompt + reply, as vLLM counts it: a request with
max_tokens needs room for all of it, one without for a token, and its reply ends where the
context is full). A longer request gets --overflow: error (400 "This model's maximum context
length is N tokens. However, you requested M tokens (...)" in the profile's error body) or
truncate (Ollama's silent cut, no room kept for the reply: a chat first loses whole older
messages, never a system message nor the last, and what still does not fit loses its front,
so that usage.prompt_tokens says N). --token-scale F multiplies every prompt count (a model
whose tokenizer counts F times llm-sim's tokens); --tokenizer FILE counts them with a model's
tokenizer.json instead; --no-usage leaves usage out of every reply.

POST /tokenize (at the root, not under /v1) counts exactly what usage.prompt_tokens reports
for the same request: vLLM's shape {"model","prompt"} or {"model","messages",
"add_generation_prompt"} -> {"count","max_model_len","tokens"}; under --profile llamacpp,
llama.cpp's {"content","parse_special","with_pieces"} -> {"tokens"}, with POST /apply-template
{"messages"} -> {"prompt"} rendering the ChatML text whose count is the chat usage.

Profiles (--profile) switch a server's manners on together:
    (none)    llm-sim's own: OpenAI's error bodies, model required, vLLM's overflow error and
              /tokenize, max_model_len in /v1/models, max_tokens 0 = no limit.
    vllm      vLLM: errors {"object":"error","message","type":"BadRequestError","code":400};
              model optional; max_tokens 0 is a 400; overflow error; /tokenize;
              max_model_len in /v1/models.
    ollama    Ollama's /v1: errors {"error":{"message","type":"invalid_request_error"|
              "not_found_error"|"api_error","param":null,"code":null}}; model required;
              max_completion_tokens and n ignored, max_tokens 0 = no limit; /v1/completions
              applies the chat template (+26 prompt tokens: 9 raw -> 35), and its stream,
              with include_usage, has a zeroed usage on every chunk; overflow truncate;
              a request without max_tokens stops at 10 x --max-model-len; no /tokenize;
              GET /api/version and /api/ps (context_length: --max-model-len).
    llamacpp  llama.cpp's llama-server: errors {"error":{"code":400,"message","type"}}; any
              model name is served; the stream's finish chunk carries usage, asked or not;
              overflow error (exceed_context_size_error); llama.cpp's /tokenize and
              /apply-template (chat usage is the count of the rendered ChatML).
    openai    api.openai.com: OpenAI's error bodies, model required, max_tokens 0 is a 400,
              overflow error with code context_length_exceeded, no /tokenize.
--overflow overrides the profile's. docs/llm-sim.md says what each profile reproduces.

Example:
    llm-sim --addr 127.0.0.1:0 --skill 0.8 --skill-decay 0.5 > sim.url & sim=$!
    until [ -s sim.url ]; do sleep 0.1; done
    gen-context lifbench --lengths 4k,8k | expand-templates \
      | infer-batch --base-url "$(head -1 sim.url)" --model llm-sim -j 16 | judge | aggregate-ifs
    kill $sim`

func simPlug(b bench.Bench) bench.Plug[[]sim.Solver] { return b.Sim }

// LLMSim is llm-sim: the benchmarks' solvers answer their prompts, in list
// order.
func LLMSim(bs []bench.Bench) app.Tool {
	check(bs)
	d := sim.DefaultOptions()
	return app.Tool{
		Name:        "llm-sim",
		Usage:       "an OpenAI-compatible TEST server with simulated latency, skill and faults",
		Description: simDescription,
		Kind:        app.Server,
		Flags: bench.Flags([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: d.Addr, Usage: "listen `HOST:PORT` (port 0 picks a free port)"},
			&cli.StringSliceFlag{Name: "model", Value: cli.NewStringSlice(sim.DefaultModel), Usage: "served model `NAME` or NAME=SKILL (repeatable; requests naming another model get 404)"},
			&cli.Float64Flag{Name: "skill", Value: d.Skill, Usage: "base skill in [0,1]: the probability that a solver answers an item correctly"},
			&cli.Float64Flag{Name: "skill-decay", Usage: "skill lost at long context, in [0,1] (see above)"},
			&cli.IntFlag{Name: "skill-decay-tokens", Value: d.DecayTokens, Usage: "prompt tokens at which --skill-decay has its full effect"},
			&cli.DurationFlag{Name: "latency", Usage: "time to first token, from the request's arrival (or from when a slot freed for a queued one)"},
			&cli.Float64Flag{Name: "prefill-tokens-per-sec", Usage: "prompt tokens processed per second before the first token (0: free)"},
			&cli.IntFlag{Name: "prefix-cache-tokens", Usage: "prefix cache capacity in tokens (LRU over 512-byte prompt blocks, like vLLM's automatic prefix caching): cached prompt tokens cost no prefill; GET /metrics counts hits (0: no cache)"},
			&cli.Float64Flag{Name: "tokens-per-sec", Usage: "generation speed per request (0: instant)"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "requests generated at once; more wait in a queue (0: no cap)"},
			&cli.IntFlag{Name: "max-queue", Usage: "requests that may wait; more get 503 with Retry-After (0: no bound)"},
			&cli.Float64Flag{Name: "fail-rate", Usage: "fraction of completion requests that get a fault, in [0,1]"},
			&cli.StringFlag{Name: "faults", Value: "all", Usage: "fault `MIX`: all, or weights like 429=2,500=1,503=1,reset=1,stall=1,truncate=1,abort=1"},
			&cli.DurationFlag{Name: "retry-after", Value: d.RetryAfter, Usage: "Retry-After sent with 429 (rounded up to whole seconds; retry-after-ms is exact)"},
			&cli.DurationFlag{Name: "stall-for", Value: d.StallFor, Usage: "how long a stalled request hangs before its reply"},
			&cli.IntFlag{Name: "max-model-len", Usage: "context length `N` in tokens, prompt and reply (0: no limit); longer requests get --overflow"},
			&cli.StringFlag{Name: "overflow", Usage: "what a request longer than --max-model-len gets: `error` (400 \"maximum context length\") or truncate (the last N prompt tokens are answered, usage says so); default: the profile's"},
			&cli.Float64Flag{Name: "token-scale", Value: 1, Usage: "multiply every prompt count (usage, /tokenize, the context) by `F`, 0.1 to 10: a model whose tokenizer counts F times llm-sim's tokens"},
			&cli.BoolFlag{Name: "no-usage", Usage: "leave usage out of every reply (as some servers and proxies do)"},
			&cli.StringFlag{Name: "tokenizer", Usage: "count prompts with a model's tokenizer.json `FILE` (as a server running that model does) instead of llm-sim's estimate"},
			&cli.StringFlag{Name: "profile", Usage: "behave like `SERVER`: vllm, ollama, llamacpp or openai (see above); default: llm-sim's own"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for replies and faults"},
			&cli.StringFlag{Name: "reasoning", Usage: "think before answering: `MODE` inline (<think>…</think> in the text), harmony (gpt-oss channels in the text) or field (reasoning_content, chat only); the trace names what the benchmark's scorer would count (keywords, IDs, labels, JSON), and max_tokens cuts trace and answer together"},
			&cli.IntFlag{Name: "reasoning-len", Usage: "make each --reasoning trace `N` tokens long (0: its natural length: what the solver names and a line on how it answered)"},
		}, bs, simPlug),
		Action: func(r *app.Run) error { return serve(r, bs) },
	}
}

func serve(r *app.Run, bs []bench.Bench) error {
	opt := sim.DefaultOptions()
	var err error
	if opt.Models, opt.ModelSkill, err = sim.ParseModels(r.StringSlice("model")); err != nil {
		return app.Usagef("%v", err)
	}
	if opt.Faults, err = sim.ParseFaultMix(r.String("faults")); err != nil {
		return app.Usagef("--faults: %v", err)
	}
	if opt.Profile, err = sim.ParseProfile(r.String("profile")); err != nil {
		return app.Usagef("--profile %v", err)
	}
	opt.MaxModelLen = r.Int("max-model-len")
	opt.TokenScale, opt.NoUsage = r.Float64("token-scale"), r.Bool("no-usage")
	if f := r.String("tokenizer"); f != "" {
		enc, err := tokens.Get(f)
		if err != nil {
			return app.Usagef("--tokenizer: %v", err)
		}
		opt.CountText = enc.Count
	}
	if o := r.String("overflow"); o != "" {
		if opt.Overflow, err = sim.ParseOverflow(o); err != nil {
			return app.Usagef("--overflow %v", err)
		}
		if opt.MaxModelLen == 0 {
			// Without a context nothing overflows: a test meant to see
			// truncation would silently see none.
			return app.Usagef("--overflow %s needs --max-model-len N (without a context length nothing overflows)", o)
		}
	}
	opt.Addr = r.String("addr")
	opt.Skill, opt.SkillDecay, opt.DecayTokens = r.Float64("skill"), r.Float64("skill-decay"), r.Int("skill-decay-tokens")
	opt.Latency, opt.PrefillTPS, opt.TokensPerSec = r.Duration("latency"), r.Float64("prefill-tokens-per-sec"), r.Float64("tokens-per-sec")
	opt.MaxConcurrency, opt.MaxQueue = r.Int("max-concurrency"), r.Int("max-queue")
	opt.PrefixCacheTokens = r.Int("prefix-cache-tokens")
	opt.FailRate, opt.RetryAfter, opt.StallFor = r.Float64("fail-rate"), r.Duration("retry-after"), r.Duration("stall-for")
	solvers, err := bench.Open(r, bs, simPlug)
	if err != nil {
		return err
	}
	for _, b := range bs {
		opt.Solvers = append(opt.Solvers, solvers[b.Name]...)
	}
	opt.Seed, opt.Reasoning, opt.ReasoningLen, opt.Log = r.Uint64("seed"), r.String("reasoning"), r.Int("reasoning-len"), r.Log
	if err := opt.Validate(); err != nil {
		return app.Usagef("%v", err)
	}
	s := sim.New(opt)
	url, err := s.Start()
	if err != nil {
		return err
	}
	fmt.Fprintln(r.App.Writer, url)
	r.Log.Info("serving (a test double, not a model)", "url", url, "models", opt.Models, "profile", cmp.Or(string(opt.Profile), "llm-sim"), "max_model_len", opt.MaxModelLen)
	<-r.Ctx.Done()
	err = s.Close()
	st := s.Stats()
	r.Log.Info("stopped", "requests", st.Requests, "ok", st.OK, "faults", fmt.Sprint(st.Faults), "context_errors", st.ContextErrors, "prompts_cut", st.PromptsCut, "context_shifts", st.ContextShifts, "max_concurrent", st.MaxConcurrent, "queue_peak", st.QueuePeak)
	return err
}
