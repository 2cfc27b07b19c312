package main

import (
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/tokens"
	"github.com/urfave/cli/v2"
)

func lifbenchCommand() *app.Command {
	return &app.Command{
		Name:  "lifbench",
		Usage: "LIFBench List, MultiDoc and OneDoc contexts at exact token budgets",
		Description: `One record per scenario × length: the context text (never over its token
budget, counted with --tokenizer), and what expand-templates needs (list
elements, document attributes and duplicate groups, tagged key sentences).
The default lengths are the official 3, 6, 13, 28, 60 and 120 × 1024 tokens,
named 4k…128k; other budgets are Nk (N×1024) or a token count.

Example:
  gen-context lifbench --lengths 4k,8k | expand-templates | infer-batch -j 64 \
    | judge | aggregate-ifs
  gen-context lifbench --official list_input.json -o list.jsonl.zst`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scenarios", Value: "list,multidoc,onedoc", Usage: "scenarios to build"},
			&cli.StringFlag{Name: "lengths", Value: "4k,8k,16k,32k,64k,128k", Usage: "context budgets: 4k…128k (official), Nk, or tokens"},
			&cli.Uint64Flag{Name: "seed", Value: 0, Usage: "seed of every random choice (ids, texts, tags)"},
			&cli.StringFlag{Name: "tokenizer", Value: tokens.Default, Usage: "what counts the budget: a tiktoken encoding (" + strings.Join(tokens.Names, ", ") + ") or a model's tokenizer.json `FILE`, for budgets exact for that model"},
			&cli.StringFlag{Name: "corpus", Usage: "draw list lines, essay sentences and document bodies from `FILE` (JSONL with \"text\", or lines)"},
			&cli.StringFlag{Name: "official", Usage: "import an official context file (data/meta/*_input.json) instead of generating"},
		},
		Action: func(r *app.Run) error {
			opt := lifbench.GenOptions{Seed: r.Uint64("seed"), Tokenizer: r.String("tokenizer")}
			if f := r.String("official"); f != "" {
				for _, g := range []string{"scenarios", "lengths", "corpus"} {
					if r.IsSet(g) {
						return app.Usagef("--%s does not apply to --official: the official contexts are imported as they are", g)
					}
				}
				return lifbench.ImportOfficial(f, opt, r.Emit)
			}
			for _, s := range strings.Split(r.String("scenarios"), ",") {
				if s = strings.TrimSpace(s); s != "" {
					opt.Scenarios = append(opt.Scenarios, s)
				}
			}
			var err error
			if opt.Lengths, err = lifbench.ParseLengths(r.String("lengths")); err != nil {
				return app.Usagef("--lengths: %v", err)
			}
			for _, s := range opt.Scenarios {
				if s != lifbench.List && s != lifbench.MultiDoc && s != lifbench.OneDoc {
					return app.Usagef("--scenarios: unknown %q (want list, multidoc, onedoc)", s)
				}
			}
			if f := r.String("corpus"); f != "" {
				if opt.Corpus, err = lifbench.ReadCorpus(f); err != nil {
					return err
				}
			}
			return lifbench.Generate(opt, r.Emit)
		},
	}
}
