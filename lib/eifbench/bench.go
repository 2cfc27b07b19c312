package eifbench

import (
	"fmt"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/split"
	"github.com/urfave/cli/v2"
)

// Benchmark is EifBench as the programs see it (lib/bench).
var Benchmark = bench.Bench{
	Name:         Bench,
	Title:        "EifBench",
	Generate:     genCommand,
	Expand:       bench.Plug[expand.Factory]{Open: openExpand},
	Split:        bench.Fixed[split.Splitter](Split),
	Judge:        bench.Fixed[judge.Factory](NewScorer),
	JudgePrompts: []string{"en", "zh"},
	Aggregate:    NewAggregator,
	Tables:       Tables,
	Design:       design,
	Figures:      figures,
	Sim:          bench.Fixed([]sim.Solver{JudgeSolver{}, AnswerSolver{}}),
}

var genCommand = app.Command{
	Usage: "EifBench tasks: one input, 6–12 sub-instructions, several constraints each",
	Description: `Without --official, emits the project's own small English sample set (plain
text, dyadic and multi-party dialogue tasks). With --official FILE, imports the
official files (sorted_single450.json, sorted_dialogue450.json,
sorted_party100.json); the subset comes from the file name or --subset.
group: subset, sub_instructions, constraints.

Example:
  gen-context eifbench --official data/sorted_party100.json | expand-templates \
    | infer-batch --model m | split-subtasks | judge --judge-model j | aggregate-ifs`,
	Flags: []cli.Flag{
		&cli.StringSliceFlag{Name: "official", Usage: "import the official EifBench `FILE` (repeatable)"},
		&cli.StringFlag{Name: "subset", Usage: "`NAME`: plain_text, dyadic or multi_party; with --official, the subset of the files (default: from each file's name); without, emit only this subset of the sample set"},
	},
	Action: func(r *app.Run) error {
		opt := GenOptions{Official: r.StringSlice("official"), Subset: r.String("subset")}
		// The sample set's size goes into every item, so the tasks are
		// loaded before the first is emitted.
		tasks, err := LoadTasks(opt)
		if err != nil {
			return err
		}
		source := fmt.Sprintf("ifkit's own English sample set, %d tasks (not the official data)", len(tasks))
		if len(opt.Official) > 0 {
			source = bench.OfficialSource(opt.Official...)
		}
		return EmitTasks(tasks, bench.EmitFrom(r, source))
	},
}
