package infer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bytesize"
	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/tokens"
	"github.com/urfave/cli/v2"
)

// Options configure one engine. OptionsFromFlags fills them from the command
// line; a program may also build them directly.
type Options struct {
	// Endpoint role (flags carry the prefix, e.g. --judge-base-url).
	Role            string          // the flag prefix, for messages: "" or "judge-"
	BaseURLs        []string        // normalized by Process; none is fine while no record needs a call
	Model           string          // "" asks the endpoints' /v1/models for their only model
	Models          *oai.ModelsOnce // answers of /v1/models shared with the caller (judge); nil asks
	APIKey          string          // never written anywhere
	Stream          bool            // SSE, to measure time to first token
	RPM, TPM        float64         // 0 = unlimited
	MaxModelLen     int             // 0 = no pre-flight check
	TruncateContext bool            // cut the context part instead of failing a too-long request
	ContextMarkers  []string        // where the instruction starts (see truncate.go)
	Tokenizer       string          // counts prompt tokens: a tiktoken encoding (estimate), a tokenizer.json, or TokenizerServer
	Reasoning       reasoning.Mode  // the reasoning rule for the replies (lib/reasoning); "" is Strip

	// Engine.
	Concurrency    int           // requests in flight (-j)
	Adaptive       bool          // cut concurrency on 429, grow it back after
	Window         int           // reorder window in records; 0 = 16 × Concurrency
	Unordered      bool          // write in completion order
	MaxRetries     int           // retries after the first attempt
	RetryBase      time.Duration // first back-off step (full jitter, doubling)
	RetryMaxWait   time.Duration // cap of one back-off
	RetryAfterMax  time.Duration // cap on a server's Retry-After
	ConnectTimeout time.Duration
	FirstByte      time.Duration
	IdleTimeout    time.Duration // streaming: longest gap between events
	Timeout        time.Duration // one attempt, total
	Resume         bool
	ResumeFrom     []string
	RetryErrors    bool
	Output         string        // the -o path, for --resume
	Grace          time.Duration // how long in-flight requests may finish after SIGTERM
	StatsFile      string
	PauseAfter     int           // consecutive failures that pause an endpoint
	PauseFor       time.Duration // first pause; doubles per failed probe, capped at 2 min
	OutageWait     time.Duration // how long records wait when every endpoint is down (0: not at all)
	Batch          BatchOptions  // OpenAI Batch export, import or API instead of calls
	Dispatch       string        // DispatchPrefix or DispatchInput ("": input), see dispatch.go
	MaxReply       int64         // bytes of one reply, streamed or not (0: oai.MaxBody)
	Cache          cache.Options // --cache: replies kept and reused across runs (cached.go)
	Price          cost.Price    // --price: what the tokens or the GPU hours cost
	DryRun         bool          // count and price what would be sent, send nothing (dryrun.go)

	// retryWait, when set (tests), waits each retry's back-off instead of
	// sleep, so a test sees every wait the engine decided on.
	retryWait func(ctx context.Context, d time.Duration) error
	// queued, when set (tests), is told how many records the prefix
	// dispatcher has been given, each time it is given one.
	queued func(n int)
}

// Defaults returns the options every flag defaults to.
func Defaults() Options {
	return Options{
		Tokenizer:      tokens.Default,
		ContextMarkers: []string{"Instruction:", "Instructions:"},
		Concurrency:    8,
		Adaptive:       true,
		MaxRetries:     5,
		RetryBase:      500 * time.Millisecond,
		RetryMaxWait:   60 * time.Second,
		RetryAfterMax:  120 * time.Second,
		ConnectTimeout: 10 * time.Second,
		FirstByte:      20 * time.Minute,
		IdleTimeout:    2 * time.Minute,
		Timeout:        60 * time.Minute,
		Grace:          25 * time.Second,
		PauseAfter:     5,
		PauseFor:       5 * time.Second,
		OutageWait:     10 * time.Minute,
	}
}

const (
	catEndpoint = "Endpoint:"
	catEngine   = "Inference engine:"
)

// maxKeyFile bounds an --api-key-file: a key is a line, and a mistyped path
// (/dev/zero, a dataset) must not be read into memory.
const maxKeyFile = 64 << 10

// Flags returns the endpoint flags for a role and the shared engine flags.
//
// Prefixed (one set per endpoint role, e.g. "judge-"): base-url, model,
// api-key-file, stream, rpm, tpm, max-model-len, truncate-context,
// context-marker, tokenizer: they describe a server and its model, and a
// judge usually runs on a different one. The key comes from OPENAI_API_KEY
// (role "") or JUDGE_API_KEY (role "judge-") or the key file, never from argv.
//
// Unprefixed (the engine, shared by every role a program has): -j/--concurrency,
// --adaptive, --window, --unordered, --max-retries, --retry-base,
// --retry-max-wait, --retry-after-max, the timeouts, --resume, --resume-from,
// --retry-errors, --grace, --stats, the batch modes, --dispatch, the cache's
// (lib/cache.Flags), --price and --dry-run. A program with two roles calls
// EndpointFlags for the second one only.
func Flags(prefix string) []cli.Flag {
	return append(EndpointFlags(prefix), EngineFlags()...)
}

// EndpointFlags are the per-role flags.
func EndpointFlags(prefix string) []cli.Flag {
	d := Defaults()
	baseEnv, keyEnv := []string{envName(prefix, "BASE_URL")}, envName(prefix, "API_KEY")
	if prefix == "" {
		baseEnv = append(baseEnv, "OPENAI_API_BASE") // the legacy name
	}
	return []cli.Flag{
		&cli.StringSliceFlag{Name: prefix + "base-url", EnvVars: baseEnv, Category: catEndpoint,
			Usage: "OpenAI-compatible endpoint `URL` (…/v1); repeat or comma-separate for several, balanced by least in flight"},
		&cli.StringFlag{Name: prefix + "model", Category: catEndpoint,
			Usage: "model `NAME` sent with each request (default: the endpoint's only model from /v1/models)"},
		&cli.StringFlag{Name: redact.Flag(prefix + "api-key-file"), Category: catEndpoint,
			Usage: "read the API key from `FILE` (default: $" + keyEnv + "; keys are never taken from argv nor written anywhere)"},
		&cli.BoolFlag{Name: prefix + "stream", Category: catEndpoint,
			Usage: "stream answers (SSE) to measure time to first token (ttft_ms)"},
		&cli.Float64Flag{Name: prefix + "rpm", Category: catEndpoint, Usage: "at most `N` requests per minute (0: no limit)"},
		&cli.Float64Flag{Name: prefix + "tpm", Category: catEndpoint, Usage: "at most `N` tokens per minute, estimated as prompt tokens + max_tokens (0: no limit)"},
		&cli.IntFlag{Name: prefix + "max-model-len", Category: catEndpoint,
			Usage: "pre-flight: a request whose estimated prompt tokens + max_tokens exceed `L` is not sent and gets an error record (0: no check)"},
		&cli.BoolFlag{Name: prefix + "truncate-context", Category: catEndpoint,
			Usage: "with --" + prefix + "max-model-len: cut the context part of a too-long prompt from the right, keeping the instruction, instead of failing it"},
		&cli.StringSliceFlag{Name: prefix + "context-marker", Value: cli.NewStringSlice(d.ContextMarkers...), Category: catEndpoint,
			Usage: "text that starts the instruction in a prompt; --" + prefix + "truncate-context cuts only before the last one"},
		&cli.StringFlag{Name: prefix + "tokenizer", Value: d.Tokenizer, Category: catEndpoint,
			Usage: "what counts prompt tokens (response.prompt_tokens_sent, pre-flight, --truncate-context, --tpm) and a reasoning trace the server did not count: \"server\" asks the endpoint's tokenize API (vLLM, SGLang, llama.cpp, TGI; traces are counted with o200k_base), a tokenizer.json `FILE` is the model's own (exact, offline), or a tiktoken encoding (" + strings.Join(tokens.Names, ", ") + "): an estimate for any model but OpenAI's"},
		reasoningFlag(prefix),
	}
}

// reasoningFlag is --reasoning, or --judge-reasoning for the judge's model.
func reasoningFlag(prefix string) cli.Flag {
	f := reasoning.Flag(prefix+"reasoning", "the model's replies")
	if prefix != "" {
		f = reasoning.Flag(prefix+"reasoning", "the judge model's replies, whose verdict is read from the answer after it")
	}
	f.Category = catEndpoint
	return f
}

// envName is the variable of a role: OPENAI_BASE_URL, JUDGE_API_KEY, ...
func envName(prefix, what string) string {
	if prefix == "" {
		return "OPENAI_" + what
	}
	return strings.ToUpper(strings.ReplaceAll(prefix, "-", "_")) + what
}

// EngineFlags are the flags every role shares.
func EngineFlags() []cli.Flag {
	d := Defaults()
	return append([]cli.Flag{
		&cli.IntFlag{Name: "concurrency", Aliases: []string{"j"}, Value: d.Concurrency, Category: catEngine, Usage: "requests in flight, across all endpoints"},
		&cli.BoolFlag{Name: "adaptive", Value: d.Adaptive, Category: catEngine, Usage: "cut concurrency on 429 and grow it back (--adaptive=false: fixed -j)"},
		&cli.IntFlag{Name: "window", Category: catEngine, Usage: "reorder window in records for ordered output (default 16 × -j)"},
		&cli.BoolFlag{Name: "unordered", Category: catEngine, Usage: "write records as they complete, not in input order"},
		&cli.IntFlag{Name: "max-retries", Value: d.MaxRetries, Category: catEngine, Usage: "retries of a request after network errors, timeouts, truncated or bad replies, " + oai.RetriedStatuses + " (never " + oai.FinalStatuses + " or another 4xx)"},
		&cli.DurationFlag{Name: "retry-base", Value: d.RetryBase, Category: catEngine, Usage: "first back-off step; doubles per retry, full jitter"},
		&cli.DurationFlag{Name: "retry-max-wait", Value: d.RetryMaxWait, Category: catEngine, Usage: "longest back-off between retries"},
		&cli.DurationFlag{Name: "retry-after-max", Value: d.RetryAfterMax, Category: catEngine, Usage: "cap on a server's Retry-After"},
		&cli.DurationFlag{Name: "timeout-connect", Value: d.ConnectTimeout, Category: catEngine, Usage: "TCP/TLS connect timeout (0: none)"},
		&cli.DurationFlag{Name: "timeout-first-byte", Value: d.FirstByte, Category: catEngine, Usage: "wait for the response headers or the first streamed event; without --stream servers answer only when the whole generation is done, so long generations want --stream (then a stall is caught by --timeout-idle) (0: none)"},
		&cli.DurationFlag{Name: "timeout-idle", Value: d.IdleTimeout, Category: catEngine, Usage: "streaming: longest pause between events (0: none)"},
		&cli.DurationFlag{Name: "timeout", Value: d.Timeout, Category: catEngine, Usage: "one attempt, start to end (0: none)"},
		&cli.BoolFlag{Name: "resume", Category: catEngine, Usage: "continue an earlier run: read the ids already answered in -o FILE (and FILE.partial, even truncated or compressed, and its journal) or in the run -o DIR/ holds, and send only the rest"},
		&cli.StringSliceFlag{Name: "resume-from", Category: catEngine, Usage: "earlier output `FILE`(s), partitioned folders (-o DIR/) or folders of shard parts whose answers to the same requests are reused instead of sent again (implies --resume)"},
		&cli.BoolFlag{Name: "retry-errors", Category: catEngine, Usage: "with --resume: send again every record that ended with \"error\" (transient ones — network, timeout, bad, cut or aborted replies, " + oai.RetriedStatuses + " — are sent again anyway; this adds " + oai.FinalStatuses + ", other 4xx and context_length)"},
		&cli.DurationFlag{Name: "outage-wait", Value: d.OutageWait, Category: catEngine, Usage: "when every endpoint fails (network errors, 5xx) after one has answered, records wait this long for one to come back instead of using up their retries (0: no waiting)"},
		&cli.DurationFlag{Name: "grace", Value: d.Grace, Category: catEngine, Usage: "on SIGTERM/SIGINT: how long in-flight requests may finish before the output is flushed (keep it under Slurm's KillWait)"},
		&cli.StringFlag{Name: "stats", Category: catEngine, Usage: "write run statistics as JSON to `FILE` (counts, latency and TTFT percentiles, tokens, throughput)"},
		&cli.StringFlag{Name: "max-reply", Value: "64MiB", Category: catEngine, Usage: "longest reply read, streamed or not (`SIZE`: bytes, or with KiB, MiB, GiB); a longer one fails the record with kind " + oai.KindTooLarge + ", not retried, so memory stays within a few times SIZE per request in flight"},
	}, slices.Concat(batchFlags(), []cli.Flag{dispatchFlag()}, cache.Flags(), accountFlags())...)
}

// OptionsFromFlags reads the flags of Flags(prefix) (or EndpointFlags(prefix)
// plus EngineFlags()) and the API key from the environment or the key file.
func OptionsFromFlags(r *app.Run, prefix string) (Options, error) {
	o := Defaults()
	for _, v := range r.StringSlice(prefix + "base-url") {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				redact.AddURL(u)
				o.BaseURLs = append(o.BaseURLs, u)
			}
		}
	}
	o.Role = prefix
	o.Model = r.String(prefix + "model")
	keyEnv := envName(prefix, "API_KEY")
	if f := r.String(prefix + "api-key-file"); f != "" {
		b, err := stream.ReadFileMax(f, maxKeyFile)
		if err != nil {
			return o, app.Usagef("--%sapi-key-file: %v", prefix, err)
		}
		o.APIKey = strings.TrimSpace(string(b))
		redact.Add(o.APIKey) // before the check below can print anything
		if strings.ContainsAny(o.APIKey, "\r\n") {
			return o, app.Usagef("--%sapi-key-file %s holds more than one line: a key file holds the key alone", prefix, f)
		}
	} else {
		o.APIKey = strings.TrimSpace(r.Getenv(keyEnv))
	}
	redact.Add(o.APIKey)
	o.Stream = r.Bool(prefix + "stream")
	o.RPM, o.TPM = r.Float64(prefix+"rpm"), r.Float64(prefix+"tpm")
	o.MaxModelLen = r.Int(prefix + "max-model-len")
	o.TruncateContext = r.Bool(prefix + "truncate-context")
	o.ContextMarkers = r.StringSlice(prefix + "context-marker")
	o.Tokenizer = r.String(prefix + "tokenizer")
	mode, err := reasoning.ParseMode(r.String(prefix + "reasoning"))
	if err != nil {
		return o, app.Usagef("--%sreasoning %q: %v", prefix, r.String(prefix+"reasoning"), err)
	}
	o.Reasoning = mode

	o.Concurrency = r.Int("concurrency")
	o.Adaptive = r.Bool("adaptive")
	o.Window = r.Int("window")
	o.Unordered = r.Bool("unordered")
	o.MaxRetries = r.Int("max-retries")
	o.RetryBase = r.Duration("retry-base")
	o.RetryMaxWait = r.Duration("retry-max-wait")
	o.RetryAfterMax = r.Duration("retry-after-max")
	o.ConnectTimeout = r.Duration("timeout-connect")
	o.FirstByte = r.Duration("timeout-first-byte")
	o.IdleTimeout = r.Duration("timeout-idle")
	o.Timeout = r.Duration("timeout")
	o.ResumeFrom = r.StringSlice("resume-from")
	o.Resume = r.Bool("resume") || len(o.ResumeFrom) > 0
	o.RetryErrors = r.Bool("retry-errors")
	o.Output = r.String("output")
	if o.Output == "-" {
		o.Output = ""
	}
	if f := r.LakeRunFile(); f != "" {
		// -o DIR/: the journal and --resume's files are DIR/_run.partial.*,
		// and the earlier parts come from app (EarlierParts).
		o.Output = f
	}
	o.Grace = r.Duration("grace")
	o.OutageWait = r.Duration("outage-wait")
	o.StatsFile = r.String("stats")
	if err := r.ClaimFile("stats", o.StatsFile); err != nil {
		return o, err
	}
	o.Batch = batchOptionsFromFlags(r)
	if err := r.ClaimInputs("batch-import", o.Batch.Import); err != nil {
		return o, err
	}
	o.Dispatch = r.String("dispatch")
	n, err := bytesize.Parse(r.String("max-reply"))
	switch {
	case err == nil && n < 1<<10:
		err = errors.New("want at least 1KiB")
	case err == nil && n > stream.MaxLine/2:
		err = fmt.Errorf("at most %dMiB: the record that holds a longer reply would be too long for the next stage (%d MiB a line)", stream.MaxLine/2>>20, stream.MaxLine>>20)
	}
	if err != nil {
		return o, app.Usagef("--max-reply %q: %v", r.String("max-reply"), err)
	}
	o.MaxReply = n
	if o.Cache, err = cache.OptionsFromFlags(r); err != nil {
		return o, err
	}
	if o.Price, err = cost.ParsePrice(r.String("price")); err != nil {
		return o, app.Usagef("--price: %v", err)
	}
	o.DryRun = r.Bool("dry-run")
	return o, o.validate()
}

func (o *Options) validate() error {
	switch {
	case o.Concurrency < 1:
		return app.Usagef("-j/--concurrency %d: want at least 1", o.Concurrency)
	case o.MaxRetries < 0:
		return app.Usagef("--max-retries %d: want 0 or more", o.MaxRetries)
	case o.RPM < 0 || o.TPM < 0:
		return app.Usagef("--rpm/--tpm: want 0 (no limit) or more")
	case o.Grace < 0 || o.OutageWait < 0:
		return app.Usagef("--grace %v, --outage-wait %v: want 0 or more", o.Grace, o.OutageWait)
	case o.MaxModelLen < 0:
		return app.Usagef("--max-model-len %d: want 0 (no check) or more", o.MaxModelLen)
	case o.TruncateContext && o.MaxModelLen == 0:
		return app.Usagef("--truncate-context needs --max-model-len")
	case o.RetryErrors && !o.Resume:
		return app.Usagef("--retry-errors needs --resume (with -o FILE) or --resume-from FILE")
	case o.Resume && o.Output == "" && len(o.ResumeFrom) == 0:
		return app.Usagef("--resume needs -o FILE (the earlier output) or --resume-from FILE")
	case o.Window != 0 && o.Window < o.Concurrency:
		return app.Usagef("--window %d: want at least -j (%d)", o.Window, o.Concurrency)
	}
	if err := o.validateBatch(); err != nil {
		return err
	}
	if err := o.validateDryRun(); err != nil {
		return err
	}
	// A negative wait would silently mean "no limit", as 0 does.
	for _, w := range []struct {
		flag string
		d    time.Duration
	}{{"retry-base", o.RetryBase}, {"retry-max-wait", o.RetryMaxWait}, {"retry-after-max", o.RetryAfterMax},
		{"timeout-connect", o.ConnectTimeout}, {"timeout-first-byte", o.FirstByte}, {"timeout-idle", o.IdleTimeout}, {"timeout", o.Timeout}} {
		if w.d < 0 {
			return app.Usagef("--%s %v: want 0 or more", w.flag, w.d)
		}
	}
	for i, u := range o.BaseURLs {
		n, err := oai.NormalizeBase(u)
		if err != nil {
			return app.Usagef("%v", err)
		}
		o.BaseURLs[i] = n
	}
	if o.Tokenizer != TokenizerServer && !tokens.IsEncoding(o.Tokenizer) {
		// A tokenizer.json: read now, so a wrong path is a usage error.
		if _, err := tokens.Get(o.Tokenizer); err != nil {
			return app.Usagef("--%stokenizer: %v", o.Role, err)
		}
	}
	return nil
}

func (o *Options) window() int {
	if o.Window > 0 {
		return o.Window
	}
	return 16 * o.Concurrency
}
