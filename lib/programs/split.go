package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/split"
	"github.com/urfave/cli/v2"
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
Records of benchmarks judged whole pass through unchanged. A reply that still
holds a reasoning trace is cut after it first (--reasoning).

Example:
  infer-batch -j 64 requests.jsonl.zst | split-subtasks | judge --judge-model m | aggregate-ifs`,
		Flags: bench.Flags([]cli.Flag{reasoning.Flag("reasoning", "replies")}, bs, splitPlug),
		Action: func(r *app.Run) error {
			mode, err := reasoning.ParseMode(r.String("reasoning"))
			if err != nil {
				return app.Usagef("--reasoning %q: %v", r.String("reasoning"), err)
			}
			reg, err := bench.Open(r, bs, splitPlug)
			if err != nil {
				return err
			}
			return split.Run(r, reg, mode)
		},
	}
}
