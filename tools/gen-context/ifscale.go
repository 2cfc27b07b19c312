package main

import (
	"path/filepath"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/ifscale"
	"github.com/urfave/cli/v2"
)

func ifscaleCommand() *app.Command {
	return &app.Command{
		Name:  "ifscale",
		Usage: "IFScale keyword lists, one item per seed and density",
		Description: `For each seed the vocabulary is put in one fixed order; the item at density N
carries its first N terms (the official runner's sampling). The vocabulary is the
project's own 500 business terms unless --vocab names another (one term per line,
e.g. the official pruned_rules.csv); --numpy-compat orders it exactly as numpy's
legacy RandomState(seed).permutation does, as the official runner did.

Example:
  gen-context ifscale --densities 10,50,100 --seeds 0,1 | expand-templates \
    | infer-batch --model m | judge | aggregate-ifs`,
		Flags: []cli.Flag{
			&cli.IntSliceFlag{Name: "densities", Value: cli.NewIntSlice(ifscale.DefaultDensities()...), Usage: "numbers of keywords `N,N,...` (default 10,20,...,500)"},
			&cli.IntSliceFlag{Name: "seeds", Value: cli.NewIntSlice(ifscale.DefaultSeeds()...), Usage: "seeds `S,S,...`, one keyword order each"},
			&cli.StringFlag{Name: "vocab", Usage: "vocabulary `FILE`: one term per line (or the first CSV column)"},
			&cli.BoolFlag{Name: "numpy-compat", Usage: "order keywords with numpy's legacy RandomState(seed).permutation (the official order)"},
		},
		Action: func(r *app.Run) error {
			opt := ifscale.GenOptions{Densities: r.IntSlice("densities"), Seeds: r.IntSlice("seeds"), NumpyCompat: r.Bool("numpy-compat")}
			if f := r.String("vocab"); f != "" {
				v, err := ifscale.LoadVocab(f)
				if err != nil {
					return app.Usagef("--vocab: %v", err)
				}
				opt.Vocab, opt.VocabName = v, filepath.Base(f)
			}
			if err := opt.Validate(); err != nil {
				return app.Usagef("%v", err)
			}
			return ifscale.Generate(opt, r.Emit)
		},
	}
}
