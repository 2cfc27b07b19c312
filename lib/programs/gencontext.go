package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
)

// GenContext is gen-context: one subcommand per benchmark, and
// fetch-official, which downloads the benchmarks' official files.
func GenContext(bs []bench.Bench) app.Tool {
	check(bs)
	t := app.Tool{
		Name:  "gen-context",
		Usage: "generate benchmark items (contexts, keyword lists, exams, task specs) as JSONL",
		Description: `One subcommand per benchmark; each writes one record per item, deterministic
from --seed, or imports the official files with --official FILE.

Example:
  gen-context lifbench --lengths 4k,8k | expand-templates | infer-batch -j 64 \
    | judge | aggregate-ifs --format md`,
		Kind: app.Generator,
	}
	for _, b := range bs {
		c := b.Generate
		c.Name = b.Name
		t.Commands = append(t.Commands, &c)
	}
	t.Commands = append(t.Commands, fetchOfficialCommand())
	return t
}
