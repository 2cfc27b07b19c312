package judge

import (
	"slices"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/infer"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/urfave/cli/v2"
)

// Judged is what one benchmark's LLM judge takes: the --judge modes of its
// checks, the default (ModeLLM) first, and its --judge-prompt variants (none
// when it has one prompt). Title names the benchmark in the help and in
// messages, Bench in its records ("bench"). The programs make one for each
// benchmark of the registry that has an LLM judge (lib/bench).
type Judged struct {
	Title   string
	Modes   []string
	Prompts []string
	Bench   string
}

// Modes of judging the checks that need an LLM judge (--judge).
const (
	ModeLLM     = "llm"
	ModeLexical = "lexical"
)

// modeHelp says what each mode is, for the help.
var modeHelp = map[string]string{
	ModeLLM:     "a judge model",
	ModeLexical: "an offline approximation, labelled in every record",
}

// Flags are the judge program's own flags: how an LLM judge is asked and
// read (their help names the benchmarks of judged that take each mode and
// prompt), and the judge endpoint with infer-batch's engine flags. The
// benchmarks add theirs.
func Flags(judged []Judged) []cli.Flag {
	var modes, prompts []string
	for _, m := range modeNames(judged) {
		var who []string
		for _, j := range judged {
			if slices.Contains(j.Modes, m) {
				who = append(who, j.Title)
			}
		}
		modes = append(modes, m+" ("+modeHelp[m]+": "+strings.Join(who, ", ")+")")
	}
	for _, j := range judged {
		if len(j.Prompts) > 0 {
			prompts = append(prompts, j.Title+": "+strings.Join(j.Prompts, " or "))
		}
	}
	return append([]cli.Flag{
		&cli.StringFlag{Name: "judge", Value: ModeLLM, Usage: "how the checks that need an LLM judge are judged: " + strings.Join(modes, " or ")},
		&cli.BoolFlag{Name: "strict-verdict", Usage: "accept only a judge reply that is a single yes or no verdict"},
		&cli.StringFlag{Name: "judge-prompt", Usage: "judge prompt variant (" + strings.Join(prompts, "; ") + ")"},
		reasoning.Flag("reasoning", "the records' replies (--judge-reasoning: in the judge model's)"),
	}, infer.Flags("judge-")...)
}

// modeNames are the modes some benchmark takes, in the order they first
// come.
func modeNames(judged []Judged) []string {
	var out []string
	for _, j := range judged {
		for _, m := range j.Modes {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// checkMode accepts the default mode and any --judge mode some benchmark
// takes: each scorer refuses, on its first record, a mode that is not its
// own.
func checkMode(mode string, judged []Judged) error {
	names := modeNames(judged)
	if mode == ModeLLM || slices.Contains(names, mode) {
		return nil
	}
	if len(names) == 0 {
		return app.Usagef("--judge %q: no benchmark here has an LLM judge", mode)
	}
	return app.Usagef("--judge %q: want %s", mode, strings.Join(names, " or "))
}

// checkPrompt accepts a --judge-prompt variant some benchmark has: each
// scorer refuses, on its first record, a variant that is not its own.
func checkPrompt(prompt string, judged []Judged) error {
	if prompt == "" {
		return nil
	}
	var each []string
	for _, j := range judged {
		if slices.Contains(j.Prompts, prompt) {
			return nil
		}
		if len(j.Prompts) > 0 {
			each = append(each, strings.Join(j.Prompts, " or ")+" ("+j.Title+")")
		}
	}
	if len(each) == 0 {
		return app.Usagef("--judge-prompt %q: no benchmark here has judge prompt variants", prompt)
	}
	return app.Usagef("--judge-prompt %q: want %s", prompt, strings.Join(each, ", "))
}

// Paid says whether a judged record carries a judge model's reply
// (judgement.judge, app.Tool.Paid): a score a program computed cost nothing
// and is computed again, a judge's verdict was paid for.
func Paid(rec *record.Record) bool {
	var j struct {
		Judge *record.JudgeCall `json:"judge"`
	}
	return rec.Decode("judgement", &j) == nil && j.Judge != nil
}

// Action runs the judge program over the scorers in reg. Without a judge
// endpoint (or with --judge lexical) there is no LLM processor, and a record
// that needs a judge call fails with ErrNoJudge.
func Action(reg map[string]Factory, judged []Judged) func(*app.Run) error {
	return func(r *app.Run) error {
		opt := Options{Mode: r.String("judge"), StrictVerdict: r.Bool("strict-verdict"), Prompt: r.String("judge-prompt")}
		if err := checkMode(opt.Mode, judged); err != nil {
			return err
		}
		var err error
		if opt.Reasoning, err = reasoning.ParseMode(r.String("reasoning")); err != nil {
			return app.Usagef("--reasoning %q: %v", r.String("reasoning"), err)
		}
		if err := checkPrompt(opt.Prompt, judged); err != nil {
			return err
		}
		// --batch-export, --batch-import and --dry-run call nothing, so they
		// need no endpoint.
		offline := r.Bool("batch-export") || len(r.StringSlice("batch-import")) > 0 || r.Bool("dry-run")
		if opt.Mode == ModeLexical || (len(r.StringSlice("judge-base-url")) == 0 && !offline) {
			// No request is sent, so the engine's flags (--resume, -j, --stats,
			// ...) do nothing; say so rather than let a resume seem to work.
			var ignored []string
			for _, f := range infer.Flags("judge-") {
				// --cache is left out: IFKIT_CACHE is set for a whole
				// pipeline, whose judge may have nothing to ask.
				if n := f.Names()[0]; n != "judge-base-url" && n != "cache" && r.IsSet(n) {
					ignored = append(ignored, "--"+n)
				}
			}
			if len(ignored) > 0 {
				r.Log.Warn("no judge model is called in this run (--judge lexical, or no --judge-base-url): these flags have no effect", "flags", strings.Join(ignored, " "))
			}
			if opt.Mode == ModeLexical {
				// The approximation is a judge of its own: a model judged
				// both ways is two lines in aggregate-ifs, not one whose
				// checks were judged twice.
				opt.Named = map[string]bool{}
				for _, j := range judged {
					opt.Named[j.Bench] = slices.Contains(j.Modes, ModeLexical)
				}
				opt.JudgeModel = func() (string, error) { return ModeLexical, nil }
			}
			return Run(r, reg, opt, nil)
		}
		endpoint, err := infer.OptionsFromFlags(r, "judge-")
		if err != nil {
			return err
		}
		opt.Named = map[string]bool{}
		for _, j := range judged {
			opt.Named[j.Bench] = true
		}
		// The name the records carry (modelName) and the engine's start-up
		// check both come from the endpoint's /v1/models: asked once.
		endpoint.Models = &oai.ModelsOnce{}
		opt.JudgeModel = sync.OnceValues(func() (string, error) { return modelName(r, endpoint) })
		return Run(r, reg, opt, InferProcessor(endpoint))
	}
}
