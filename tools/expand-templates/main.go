// Command expand-templates turns gen-context items into requests.
package main

import (
	"os"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/eifbench"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/ifscale"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/longins"
	"github.com/urfave/cli/v2"
)

var expanders = map[string]expand.Factory{
	"eifbench":     eifbench.NewExpander,
	"longgenbench": longgenbench.NewExpander,
	"ifscale":      ifscale.NewExpander,
	"longins":      longins.NewExpander,
	"lifbench":     lifbench.NewExpander,
}

func main() {
	app.Main(app.Tool{
		Name:      "expand-templates",
		Usage:     "turn benchmark items into OpenAI-compatible requests (fills request and gold)",
		ArgsUsage: "[FILE...]",
		Description: `Routes each item by its "bench" field: LIFBench templates x expressions x
variables, and the prompt layouts of LongGenBench, IFScale, EifBench and LongIns.
Templates ship embedded; --templates/--template load others (e.g. the official
LIFBench tasks.json). Every request carries max_tokens: the benchmark's official
value (LIFBench 100/512/4096 by task, LongGenBench 16000/32000, LongIns 10000),
else ifkit's default (IFScale 8192, EifBench 8192); --max-tokens overrides it.

Example:
  gen-context ifscale --densities 10,50,100 | expand-templates | infer-batch -j 32 | judge`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "templates", Usage: "LIFBench: load templates from `FILE` (the official tasks.json layout) instead of the embedded ones"},
			&cli.StringFlag{Name: "template", Usage: "IFScale: the task text from `FILE` instead of the embedded one"},
			&cli.Float64Flag{Name: "temperature", Usage: "override the benchmark's sampling temperature"},
			&cli.Float64Flag{Name: "top-p", Usage: "override the benchmark's top_p"},
			&cli.IntFlag{Name: "max-tokens", Usage: "override the benchmark's max_tokens"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for any random choice made while expanding"},
			&cli.BoolFlag{Name: "chat", Usage: "LongGenBench: write the chat form of its raw-completion request, for chat-only endpoints (OpenAI); the model then answers in a chat turn instead of continuing the text, unlike the official setup (docs/infer-batch.md, Real servers). The other benchmarks' requests are chat already: it changes nothing for them"},
		},
		Action: func(r *app.Run) error {
			opt := expand.Options{Templates: r.String("templates"), Template: r.String("template"), Seed: r.Uint64("seed"), Chat: r.Bool("chat")}
			// Template files are read when the first item of their benchmark
			// comes; one that cannot be opened is bad input before any work.
			for _, f := range []string{opt.Templates, opt.Template} {
				if f == "" {
					continue
				}
				h, err := os.Open(f)
				if err != nil {
					return err
				}
				h.Close()
			}
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
			return expand.Run(r, expanders, opt)
		},
	})
}
