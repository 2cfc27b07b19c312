package longgenbench

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

// Benchmark is LongGenBench as the programs see it (lib/bench).
var Benchmark = bench.Bench{
	Name:     Bench,
	Title:    "LongGenBench",
	Generate: genCommand,
	Cells:    "version × scenario",
	Cell:     bench.CellOf("group.version", "group.scenario"),
	Expand: bench.Plug[expand.Factory]{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "chat", Usage: "LongGenBench: write the chat form of its raw-completion request, for chat-only endpoints (OpenAI); the model then answers in a chat turn instead of continuing the text, unlike the official setup (docs/infer-batch.md, Real servers). The other benchmarks' requests are chat already: it changes nothing for them"},
		},
		Open: func(r *app.Run) (expand.Factory, error) {
			chat := r.Bool("chat")
			return func(opt expand.Options) (expand.Expander, error) { return NewExpander(opt, chat) }, nil
		},
	},
	Split: bench.Plug[split.Splitter]{
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "rubric", Value: "official", Usage: "LongGenBench entries: official (the official regex, quirks included) or strict (see docs/longgenbench.md)"},
		},
		Open: func(r *app.Run) (split.Splitter, error) {
			switch r.String("rubric") {
			case "official":
				return Split, nil
			case "strict":
				return SplitStrict, nil
			}
			return nil, app.Usagef("--rubric %q: want official or strict", r.String("rubric"))
		},
	},
	Judge:        bench.Fixed[judge.Factory](NewScorer),
	JudgeModes:   []string{judge.ModeLLM, judge.ModeLexical},
	JudgePrompts: []string{Prompt3Shot, PromptZeroShot},
	Aggregate:    NewAggregator,
	Tables:       Tables,
	Design:       design,
	Figures:      figures,
	Explore:      exploreHooks,
	Sim: bench.Plug[[]sim.Solver]{
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "stop-rate", Usage: "LongGenBench: probability that a long document stops early, in [0,1] (0: (1 − skill)/2)"},
		},
		Open: func(r *app.Run) ([]sim.Solver, error) {
			sr := r.Float64("stop-rate")
			if sr < 0 || sr > 1 {
				return nil, app.Usagef("--stop-rate %v: want a probability in [0,1]", sr)
			}
			return []sim.Solver{JudgeSolver{}, WriterSolver{StopRate: sr}}, nil
		},
	},
}

var genCommand = app.Command{
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
		&cli.StringSliceFlag{Name: "scenarios", Value: cli.NewStringSlice(Scenarios...), Usage: "scenarios to generate: diary, menu, skyscraper, urban"},
		&cli.StringFlag{Name: "version", Value: Short, Usage: "short (16K-token outputs) or long (32K)"},
		&cli.IntFlag{Name: "count", Value: 100, Usage: "records per scenario"},
		&cli.Uint64Flag{Name: "seed", Usage: "seed of the random placements"},
		&cli.StringSliceFlag{Name: "official", Usage: "import the official dataset `FILE` (Dataset_short.json, Dataset_long.json) instead of generating; or a folder of official files (gen-context fetch-official), whose Dataset of --version is verified and imported"},
	},
	Action: func(r *app.Run) error {
		if files := r.StringSlice("official"); len(files) > 0 {
			dir, err := bench.OfficialDir(r)
			if err != nil {
				return err
			}
			for _, f := range []string{"scenarios", "version", "count", "seed"} {
				if r.IsSet(f) && !(f == "version" && dir != "") {
					return app.Usagef("--%s does not apply to --official: the official files are imported unchanged", f)
				}
			}
			if dir != "" {
				// --version picks the official file, as it picks the
				// generator's lengths.
				v := r.String("version")
				if v != Short && v != Long {
					return app.Usagef("--version %q: want short or long", v)
				}
				l, err := official.Find(dir, Bench, OfficialDataset(v))
				if err != nil {
					return err
				}
				return ImportOfficial(l.File, bench.EmitFrom(r, bench.OfficialData(l)))
			}
			for _, f := range files {
				if err := ImportOfficial(f, bench.EmitFrom(r, bench.OfficialSource(f))); err != nil {
					return err
				}
			}
			return nil
		}
		opt := GenOptions{Scenarios: r.StringSlice("scenarios"), Version: r.String("version"), Count: r.Int("count"), Seed: r.Uint64("seed")}
		if err := opt.Validate(); err != nil {
			return app.Usagef("%v", err)
		}
		return Generate(opt, bench.EmitFrom(r, fmt.Sprintf("generated by ifkit from its own templates (seed %d)", opt.Seed)))
	},
}

// OfficialDataset is the official file of a version (short, long), by its
// path in the authors' repository.
func OfficialDataset(version string) string {
	return "Dataset/Dataset_" + version + ".json"
}
