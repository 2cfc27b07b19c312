// Command split-subtasks cuts long responses into one child record per check.
package main

import (
	"maps"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/eifbench"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/split"
	"github.com/urfave/cli/v2"
)

var splitters = map[string]split.Splitter{
	"eifbench":     eifbench.Split,
	"longgenbench": longgenbench.Split,
}

func main() {
	app.Main(app.Tool{
		Name:      "split-subtasks",
		Usage:     "cut long responses into one child record per check",
		ArgsUsage: "[FILE...]",
		Description: `LongGenBench replies are cut into entries (#*# blocks, "Week 12", "Floor 34")
and EifBench replies into sub-instruction answers; each check becomes a child
record <id>#<part> with its segment (or none when the part is missing).
Records of benchmarks judged whole pass through unchanged.

Example:
  infer-batch -j 64 requests.jsonl.zst | split-subtasks | judge --judge-model m | aggregate-ifs`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "rubric", Value: "official", Usage: "LongGenBench entries: official (the official regex, quirks included) or strict (see docs/longgenbench.md)"},
		},
		Action: func(r *app.Run) error {
			reg := splitters
			switch r.String("rubric") {
			case "official":
			case "strict":
				reg = maps.Clone(splitters)
				reg["longgenbench"] = longgenbench.SplitStrict
			default:
				return app.Usagef("--rubric %q: want official or strict", r.String("rubric"))
			}
			return split.Run(r, reg)
		},
	})
}
