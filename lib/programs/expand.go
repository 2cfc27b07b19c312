package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/urfave/cli/v2"
)

func expandPlug(b bench.Bench) bench.Plug[expand.Factory] { return b.Expand }

// ExpandTemplates is expand-templates: the sampling flags every benchmark
// reads, and each benchmark's own.
func ExpandTemplates(bs []bench.Bench) app.Tool {
	check(bs)
	return app.Tool{
		Name:      "expand-templates",
		Usage:     "turn benchmark items into OpenAI-compatible requests (fills request and gold)",
		ArgsUsage: "[FILE...]",
		Description: `Routes each item by its "bench" field: LIFBench templates x expressions x
variables, and the prompt layouts of LongGenBench, IFScale, EifBench and LongIns.
Templates ship embedded; --templates/--template load others (e.g. the official
LIFBench tasks.json). Every request carries max_tokens: the benchmark's official
value (LIFBench 100/512/4096 by task, LongGenBench 16000/32000, LongIns 10000),
else ifkit's default (IFScale 8192, EifBench 8192); --max-tokens overrides it, and
--reasoning-budget N adds N to it for a model that thinks before it answers.
Of the requests made from an item of gen-context --limit N, only the first N of
each cell of the tables are written.

Example:
  gen-context ifscale --densities 10,50,100 | expand-templates | infer-batch -j 32 | judge`,
		Flags: bench.Flags([]cli.Flag{
			&cli.Float64Flag{Name: "temperature", Usage: "override the benchmark's sampling temperature"},
			&cli.Float64Flag{Name: "top-p", Usage: "override the benchmark's top_p"},
			&cli.IntFlag{Name: "max-tokens", Usage: "override the benchmark's max_tokens"},
			&cli.IntFlag{Name: "reasoning-budget", Usage: "add `N` tokens to every request's max_tokens (the benchmark's or --max-tokens), for the reasoning trace of a model that thinks before it answers; each record says so (reasoning_budget) and every table of the report notes it"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for any random choice made while expanding"},
		}, bs, expandPlug),
		Action: func(r *app.Run) error {
			reg, err := bench.Open(r, bs, expandPlug)
			if err != nil {
				return err
			}
			for _, b := range bs {
				reg[b.Name] = b.LimitRequests(reg[b.Name])
			}
			opt := expand.Options{Seed: r.Uint64("seed")}
			if r.IsSet("temperature") {
				v := r.Float64("temperature")
				if v < 0 || v > 2 {
					return app.Usagef("--temperature %g: want 0 to 2", v)
				}
				opt.Temperature = &v
			}
			if r.IsSet("top-p") {
				v := r.Float64("top-p")
				if v <= 0 || v > 1 {
					return app.Usagef("--top-p %g: want more than 0, at most 1", v)
				}
				opt.TopP = &v
			}
			if r.IsSet("max-tokens") {
				v := r.Int("max-tokens")
				if v < 1 {
					return app.Usagef("--max-tokens %d: want at least 1", v)
				}
				opt.MaxTokens = &v
			}
			if opt.ReasoningBudget = r.Int("reasoning-budget"); opt.ReasoningBudget < 0 {
				return app.Usagef("--reasoning-budget %d: want 0 (none) or more", opt.ReasoningBudget)
			}
			return expand.Run(r, reg, opt)
		},
	}
}
