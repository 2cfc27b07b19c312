package infer

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// Estimate is what --dry-run found: what a run with the same flags would
// send and pay, before anything is sent (--stats writes it).
type Estimate struct {
	Tool    string `json:"tool"`
	Model   string `json:"model"`
	DryRun  bool   `json:"dry_run"`
	Records int64  `json:"records"`
	// Calls would be paid; the others need no call, were answered before
	// (--resume-from), are answered by the cache, or are refused before
	// sending (--max-model-len, a bad request).
	Calls     int64  `json:"calls"`
	NoCall    int64  `json:"no_call"`
	Resume    int64  `json:"resume"`
	Cache     int64  `json:"cache"`
	Refused   int64  `json:"refused"`
	Prompt    int64  `json:"prompt_tokens"` // of the calls, by --tokenizer
	Tokenizer string `json:"tokenizer"`
	// OutputCeiling is the calls' max_tokens summed: their output is at
	// most that. Unbounded calls have no max_tokens.
	OutputCeiling int64    `json:"output_ceiling"`
	Unbounded     int64    `json:"unbounded"`
	Price         string   `json:"price,omitempty"`
	CostCeiling   *float64 `json:"cost_ceiling,omitempty"`
}

func (o *Options) validateDryRun() error {
	switch {
	case !o.DryRun:
	case o.Batch.Active():
		return app.Usagef("--dry-run estimates an online run: not with --batch-export, --batch-import or --batch-api")
	case o.Output != "":
		return app.Usagef("--dry-run writes nothing: drop -o (give an earlier output with --resume-from to leave its answers out of the estimate)")
	}
	return nil
}

// dryRun is Process for --dry-run: every record is prepared, counted and
// checked as a run would, the earlier outputs of --resume-from and the
// cache answer what they hold, and the estimate goes to stderr (and
// --stats); nothing is sent and nothing is written. The endpoint is asked
// only for what is free: /v1/models (the model, when --model is not
// given) and, with --tokenizer server, the counts.
func dryRun(r *app.Run, opt Options, prepare func(*record.Record) ([]byte, error), apply func(*record.Record, *Result) error) error {
	e := newEngine(r, opt, prepare, apply)
	e.model = opt.Model
	e.lim, e.eps = newLimiter(1, false), newBalancer(opt.BaseURLs, opt.PauseAfter, opt.PauseFor, r.Log)
	e.opt.Stream = false
	e.client = oai.New(1, opt.ConnectTimeout, opt.APIKey)
	defer e.client.Close()
	if err := e.openCache(); err != nil {
		return err
	}
	defer e.closeCache()
	if len(opt.BaseURLs) == 0 {
		// No endpoint: the estimate needs none unless it counts with one.
		if err := e.modelKnown(); err != nil {
			return err
		}
	}
	if opt.Resume {
		err := e.resume()
		defer e.earlier.close()
		if err != nil {
			return err
		}
	}
	est := Estimate{Tool: r.Tool, DryRun: true, Price: opt.Price.String()}
	tokenizers := map[string]bool{}
	err := r.Records(func(rec *record.Record) error {
		est.Records++
		// An earlier failure kept is not this run's: take, not takeEarlier,
		// which would count it.
		old, _, _, err := e.earlier.take(e, rec)
		if err != nil {
			return err
		}
		if old != nil {
			est.Resume++
			return nil
		}
		it := &item{rec: rec}
		c, re, _, err := e.prepareCall(rec)
		switch {
		case err != nil:
			return err
		case re != nil:
			est.Refused++
			return nil
		case c == nil:
			est.NoCall++
			return nil
		}
		it.call = c
		e.keyCall(c)
		if e.cache != nil {
			if e.lookup(it); it.hit != nil {
				e.cache.Served()
				est.Cache++
				return nil
			}
		}
		est.Calls++
		est.Prompt += int64(c.promptTokens)
		tokenizers[c.tokenizer] = true
		if c.maxTokens > 0 {
			est.OutputCeiling += int64(c.maxTokens)
		} else {
			est.Unbounded++
		}
		return nil
	})
	if err != nil {
		return err
	}
	est.Model = e.model
	est.Tokenizer = strings.Join(slices.Sorted(maps.Keys(tokenizers)), ", ")
	if opt.Price.PerToken() {
		c := opt.Price.OfTokens(cost.Tokens{Prompt: est.Prompt, Completion: est.OutputCeiling})
		est.CostCeiling = &c
	}
	e.printEstimate(&est)
	return writeJSON(opt.StatsFile, est)
}

// printEstimate writes the estimate on stderr, for a person, and as one
// log line, for a program.
func (e *engine) printEstimate(est *Estimate) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s --dry-run: nothing was sent\n", e.r.Tool)
	fmt.Fprintf(&b, "  records            %d: %d to send", est.Records, est.Calls)
	for _, p := range []struct {
		n    int64
		what string
	}{{est.Cache, "answered by the cache"}, {est.Resume, "answered by --resume-from"}, {est.NoCall, "need no call"}, {est.Refused, "refused before sending"}} {
		if p.n > 0 {
			fmt.Fprintf(&b, ", %d %s", p.n, p.what)
		}
	}
	fmt.Fprintf(&b, "\n  model              %s\n", or(est.Model, "(unknown: give --model)"))
	fmt.Fprintf(&b, "  prompt tokens      %d (counted by %s)\n", est.Prompt, or(est.Tokenizer, "-"))
	fmt.Fprintf(&b, "  output tokens      at most %d (max_tokens)", est.OutputCeiling)
	if est.Unbounded > 0 {
		fmt.Fprintf(&b, "; %d requests have no max_tokens: their output is bounded by the model's context only", est.Unbounded)
	}
	b.WriteString("\n")
	switch {
	case est.CostCeiling != nil:
		fmt.Fprintf(&b, "  cost               at most %s (%s)\n", cost.Money(*est.CostCeiling), est.Price)
	case e.opt.Price.Set():
		fmt.Fprintf(&b, "  cost               %s is paid by the hour: the run's wall time decides it\n", est.Price)
	}
	fmt.Fprint(e.r.Stderr(), b.String())
	attrs := []any{"records", est.Records, "calls", est.Calls, "cache", est.Cache, "resume", est.Resume, "no_call", est.NoCall, "refused", est.Refused,
		"prompt_tokens", est.Prompt, "output_ceiling", est.OutputCeiling}
	if est.CostCeiling != nil {
		attrs = append(attrs, "cost_ceiling", cost.Money(*est.CostCeiling), "price", est.Price)
	}
	e.r.Log.Info("dry run", attrs...)
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
