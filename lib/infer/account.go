package infer

import (
	"github.com/ifkit/ifkit/lib/bytesize"
	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/urfave/cli/v2"
)

const catCost = "Cost:"

// accountFlags are --price and --dry-run, shared by infer-batch and judge.
func accountFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "price", Category: catCost,
			Usage: "what the run costs, in the summary, --stats and the manifest: `PRICES` per million tokens, in=P,out=P[,cached=P] (cached: prompt tokens the server's prefix cache served, billed as in= unless given; reasoning tokens are output tokens), or per GPU hour of the run's wall time, gpu-hour=P[,gpus=N]"},
		&cli.BoolFlag{Name: "dry-run", Category: catCost,
			Usage: "send nothing: read the input as a run would (--resume-from, --cache and the pre-flight apply), count the prompts with --tokenizer and print how many requests would be paid, their prompt tokens, max_tokens as the ceiling of their output, and with --price what that costs at most"},
	}
}

// accountAttrs are the summary line's account of the run: answers paid and
// from the cache, tokens, the cost, and the cache's counts.
func accountAttrs(a *cost.Account, cs *cache.Stats) []any {
	attrs := []any{"paid", a.Answers.Paid}
	if cs != nil {
		attrs = append(attrs, "from_cache", a.Answers.Cache)
	}
	attrs = append(attrs, "tokens_in", a.Tokens.Prompt, "tokens_out", a.Tokens.Completion)
	if n := a.Tokens.CachedPrompt; n > 0 {
		attrs = append(attrs, "tokens_in_cached", n)
	}
	if n := a.Tokens.Reasoning; n > 0 {
		attrs = append(attrs, "tokens_reasoning", n)
	}
	if a.Cost != nil {
		attrs = append(attrs, "cost", cost.Money(*a.Cost), "price", a.Price)
		if a.CostSaved != nil && *a.CostSaved > 0 {
			attrs = append(attrs, "cost_saved_by_cache", cost.Money(*a.CostSaved))
		}
	}
	if cs != nil {
		attrs = append(attrs, "cache_hits", cs.Hits, "cache_misses", cs.Misses, "cache_stored", cs.Stored,
			"cache_read", bytesize.Approx(cs.ReadBytes), "cache_written", bytesize.Approx(cs.WrittenBytes), "cache_run", cs.Run)
		if cs.Corrupt > 0 {
			attrs = append(attrs, "cache_unreadable", cs.Corrupt)
		}
		if cs.Evicted > 0 {
			attrs = append(attrs, "cache_evicted", cs.Evicted)
		}
		if len(cs.MissesBy) > 0 {
			attrs = append(attrs, "cache_misses_by", cs.MissesBy)
		}
	}
	return attrs
}
