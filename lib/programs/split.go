package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/split"
)

func splitPlug(b bench.Bench) bench.Plug[split.Splitter] { return b.Split }

// SplitSubtasks is split-subtasks: the benchmarks with a splitter cut their
// replies; the others' records pass through.
func SplitSubtasks(bs []bench.Bench) app.Tool {
	check(bs)
	return app.Tool{
		Name:      "split-subtasks",
		Usage:     "cut long responses into one child record per check",
		ArgsUsage: "[FILE...]",
		Description: `LongGenBench replies are cut into entries (#*# blocks, "Week 12", "Floor 34")
and EifBench replies into sub-instruction answers; each check becomes a child
record <id>#<part> with its segment (or none when the part is missing).
Records of benchmarks judged whole pass through unchanged.

Example:
  infer-batch -j 64 requests.jsonl.zst | split-subtasks | judge --judge-model m | aggregate-ifs`,
		Flags: bench.Flags(nil, bs, splitPlug),
		Action: func(r *app.Run) error {
			reg, err := bench.Open(r, bs, splitPlug)
			if err != nil {
				return err
			}
			return split.Run(r, reg)
		},
	}
}
