package programs

import (
	"slices"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/urfave/cli/v2"
)

// GenContext is gen-context: one subcommand per benchmark, and
// fetch-official, which downloads the benchmarks' official files.
func GenContext(bs []bench.Bench) app.Tool {
	check(bs)
	t := app.Tool{
		Name:  "gen-context",
		Usage: "generate benchmark items (contexts, keyword lists, exams, task specs) as JSONL",
		Description: `One subcommand per benchmark; each writes one record per item, deterministic
from --seed, or imports the official files with --official FILE. --limit N keeps
the first N items of each cell of the benchmark's tables: a small run that still
fills every table, and says so in every report.

Example:
  gen-context lifbench --lengths 4k,8k | expand-templates | infer-batch -j 64 \
    | judge | aggregate-ifs --format md`,
		Kind: app.Generator,
	}
	for _, b := range bs {
		t.Commands = append(t.Commands, generate(b))
	}
	t.Commands = append(t.Commands, fetchOfficialCommand())
	return t
}

// generate is b's subcommand with --limit, the same for every benchmark.
func generate(b bench.Bench) *app.Command {
	c := b.Generate
	c.Name = b.Name
	c.Flags = append(slices.Clip(c.Flags), &cli.IntFlag{Name: "limit",
		Usage: "keep only the first `N` items of each " + b.Cells + " (each cell of the tables), in the order they are made; expand-templates keeps the first N requests of each too; the items' source says so, and so does every report", DefaultText: "no limit"})
	c.Action = func(r *app.Run) error {
		if !r.IsSet("limit") {
			return b.Generate.Action(r)
		}
		n := r.Int("limit")
		if n < 1 {
			return app.Usagef("--limit %d: want at least 1 item per cell", n)
		}
		keep, l := b.LimitItems(n)
		r.EmitOnly(keep)
		err := b.Generate.Action(r)
		r.AddSummary("beyond_limit", l.Dropped())
		return err
	}
	return &c
}
