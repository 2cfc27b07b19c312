package eifbench

import (
	"fmt"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/official"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/split"
	"github.com/urfave/cli/v2"
)

// Benchmark is EifBench as the programs see it (lib/bench).
var Benchmark = bench.Bench{
	Name:         Bench,
	Title:        "EifBench",
	Generate:     genCommand,
	Cells:        "subset",
	Cell:         bench.CellOf("group.subset"),
	Expand:       bench.Plug[expand.Factory]{Open: openExpand},
	Split:        bench.Fixed[split.Splitter](Split),
	Judge:        bench.Fixed[judge.Factory](NewScorer),
	JudgeModes:   []string{judge.ModeLLM},
	JudgePrompts: []string{"en", "zh"},
	Aggregate:    NewAggregator,
	Tables:       Tables,
	Design:       design,
	Figures:      figures,
	Explore:      exploreHooks,
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
		&cli.StringSliceFlag{Name: "official", Usage: "import the official EifBench `FILE` (repeatable); or a folder of official files (gen-context fetch-official), whose three files (or the one of --subset) are verified and imported"},
		&cli.StringFlag{Name: "subset", Usage: "`NAME`: plain_text, dyadic or multi_party; with --official, the subset of the files (default: from each file's name); without, emit only this subset of the sample set"},
	},
	Action: func(r *app.Run) error {
		opt := GenOptions{Official: r.StringSlice("official"), Subset: r.String("subset")}
		dir, err := bench.OfficialDir(r)
		if err != nil {
			return err
		}
		var found []official.Local
		if dir != "" {
			if found, err = officialFiles(dir, opt.Subset); err != nil {
				return err
			}
			opt.Official = nil
			for _, l := range found {
				opt.Official = append(opt.Official, l.File)
			}
		}
		// The sample set's size goes into every item, so the tasks are
		// loaded before the first is emitted.
		tasks, err := LoadTasks(opt)
		if err != nil {
			return err
		}
		source := fmt.Sprintf("ifkit's own English sample set, %d tasks (not the official data)", len(tasks))
		switch {
		case dir != "":
			source = bench.OfficialData(found...)
		case len(opt.Official) > 0:
			source = bench.OfficialSource(opt.Official...)
		}
		return EmitTasks(tasks, bench.EmitFrom(r, source))
	},
}

// OfficialFiles are the official files of each subset, by their path in the
// authors' repository, in the paper's order.
var OfficialFiles = []struct{ Subset, Path string }{
	{PlainText, "data/sorted_single450.json"},
	{Dyadic, "data/sorted_dialogue450.json"},
	{MultiParty, "data/sorted_party100.json"},
}

// officialFiles finds the official files of every subset, or of subset
// alone, in the folder of official files dir, each verified.
func officialFiles(dir, subset string) ([]official.Local, error) {
	want := ""
	if subset != "" {
		var err error
		if want, err = ParseSubset(subset); err != nil {
			return nil, app.Usagef("--subset: %v", err)
		}
	}
	var out []official.Local
	for _, f := range OfficialFiles {
		if want != "" && f.Subset != want {
			continue
		}
		l, err := official.Find(dir, Bench, f.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}
