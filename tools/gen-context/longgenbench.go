package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/urfave/cli/v2"
)

func longgenbenchCommand() *app.Command {
	return &app.Command{
		Name:  "longgenbench",
		Usage: "LongGenBench tasks: one very long document with events required at single entries, over a range and periodically",
		Description: `Four scenarios (diary, menu, skyscraper, urban) in the short (16K-token output:
52 weeks, 52 menu weeks, 100 floors, 100 blocks) or long (32K: 365 days, 365
menu days, 300 floors, 361 blocks) version. Each record has 5 single, 1 range
and 1 periodic instruction at random entries, deterministic from --seed, and
its check set in gold.checks (entry number -> event, per type).
--official FILE imports Dataset_short.json / Dataset_long.json unchanged.
group: scenario, version, source, seed.

Example:
  gen-context longgenbench --version short --count 10 | expand-templates \
    | infer-batch --model m | split-subtasks | judge --judge-model j | aggregate-ifs`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "scenarios", Value: cli.NewStringSlice(longgenbench.Scenarios...), Usage: "scenarios to generate: diary, menu, skyscraper, urban"},
			&cli.StringFlag{Name: "version", Value: longgenbench.Short, Usage: "short (16K-token outputs) or long (32K)"},
			&cli.IntFlag{Name: "count", Value: 100, Usage: "records per scenario"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the random placements"},
			&cli.StringSliceFlag{Name: "official", Usage: "import the official dataset `FILE` (Dataset_short.json, Dataset_long.json) instead of generating"},
		},
		Action: func(r *app.Run) error {
			if files := r.StringSlice("official"); len(files) > 0 {
				for _, f := range []string{"scenarios", "version", "count", "seed"} {
					if r.IsSet(f) {
						return app.Usagef("--%s does not apply to --official: the official files are imported unchanged", f)
					}
				}
				for _, f := range files {
					if err := longgenbench.ImportOfficial(f, r.Emit); err != nil {
						return err
					}
				}
				return nil
			}
			opt := longgenbench.GenOptions{Scenarios: r.StringSlice("scenarios"), Version: r.String("version"), Count: r.Int("count"), Seed: r.Uint64("seed")}
			if err := opt.Validate(); err != nil {
				return app.Usagef("%v", err)
			}
			return longgenbench.Generate(opt, r.Emit)
		},
	}
}
