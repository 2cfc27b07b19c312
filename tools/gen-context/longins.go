package main

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/longins"
	"github.com/urfave/cli/v2"
)

func longinsCommand() *app.Command {
	return &app.Command{
		Name:  "longins",
		Usage: "LongIns exams: question/answer pairs, about 10% answered wrongly, per mode and length",
		Description: `Builds one exam per task, mode and length from a task source: the project's own
checkable tasks (embedded), or --tasks FILE in the Super-NaturalInstructions task
layout (one task per .json file, or JSON Lines of tasks with a "Name"). Questions
fill the length (o200k_base tokens); about --error-rate of them (at least one per
exam, spread evenly over the exam) get the answer of another instance of the same
task. Modes: gist (the instruction once), list (the instruction in every question),
limt (questions of mixed tasks, each with its instruction; as many exams as tasks).
--official FILE imports official exam files (GIST_256.json, GIST/256.json: the mode
and length are read from the name) instead.

Example:
  gen-context longins --lengths 256,1024,4096 --modes gist | expand-templates \
    | infer-batch --model m | judge | aggregate-ifs`,
		Flags: []cli.Flag{
			&cli.IntSliceFlag{Name: "lengths", Value: cli.NewIntSlice(longins.DefaultLengths()...), Usage: "exam lengths in tokens `L,L,...`"},
			&cli.StringSliceFlag{Name: "modes", Value: cli.NewStringSlice(longins.Modes...), Usage: "modes `M,M,...`: gist, list, limt"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for question order and wrong answers"},
			&cli.Float64Flag{Name: "error-rate", Value: 0.1, Usage: "share of questions answered wrongly (at least one per exam)"},
			&cli.StringSliceFlag{Name: "tasks", Usage: "task source `FILE` (repeatable) instead of the embedded checkable tasks"},
			&cli.StringSliceFlag{Name: "official", Usage: "import official exam `FILE`s (object keyed by task id) instead of generating"},
		},
		Action: func(r *app.Run) error {
			if files := r.StringSlice("official"); len(files) > 0 {
				for _, g := range []string{"lengths", "modes", "seed", "error-rate", "tasks"} {
					if r.IsSet(g) {
						return app.Usagef("--%s does not apply to --official: the official exams are imported as they are", g)
					}
				}
				for _, f := range files {
					mode, length, ok := longins.ModeLengthOf(f)
					if !ok {
						return app.Usagef("--official %s: name the file MODE_LENGTH.json or MODE/LENGTH.json (e.g. GIST_256.json)", f)
					}
					if err := longins.ImportOfficial(f, mode, length, r.Emit); err != nil {
						return err
					}
				}
				return nil
			}
			opt := longins.GenOptions{Lengths: r.IntSlice("lengths"), Seed: r.Uint64("seed"), ErrorRate: r.Float64("error-rate"), Warn: func(m string) { r.Log.Warn(m) }}
			for _, m := range r.StringSlice("modes") {
				opt.Modes = append(opt.Modes, strings.ToLower(strings.TrimSpace(m)))
			}
			if files := r.StringSlice("tasks"); len(files) > 0 {
				ts, err := longins.LoadTasks(files...)
				if err != nil {
					return fmt.Errorf("--tasks: %w", err)
				}
				opt.Tasks, opt.Source = ts, strings.Join(files, ",")
			}
			if err := opt.Validate(); err != nil {
				return app.Usagef("%v", err)
			}
			return longins.Generate(opt, r.Emit)
		},
	}
}
