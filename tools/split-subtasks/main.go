// Command split-subtasks cuts long responses into one child record per check.
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/eifbench"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/split"
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
		Action: func(r *app.Run) error { return split.Run(r, splitters) },
	})
}
