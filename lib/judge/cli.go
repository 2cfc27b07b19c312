package judge

import (
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/infer"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/urfave/cli/v2"
)

// Prompts are the --judge-prompt variants of one benchmark's LLM judge;
// Title names the benchmark in the help and in messages.
type Prompts struct {
	Title string
	Names []string
}

// Flags are the judge program's own flags: how an LLM judge is asked and
// read, the prompt variants of the benchmarks that have them, and the judge
// endpoint with infer-batch's engine flags. The benchmarks add theirs.
func Flags(prompts []Prompts) []cli.Flag {
	var each []string
	for _, p := range prompts {
		each = append(each, p.Title+": "+strings.Join(p.Names, " or "))
	}
	return append([]cli.Flag{
		&cli.StringFlag{Name: "judge", Value: "llm", Usage: "LongGenBench checks: llm, or lexical (offline approximation, labelled in every record)"},
		&cli.BoolFlag{Name: "strict-verdict", Usage: "accept only a judge reply that is a single yes or no verdict"},
		&cli.StringFlag{Name: "judge-prompt", Usage: "judge prompt variant (" + strings.Join(each, "; ") + ")"},
		reasoning.Flag("reasoning", "the records' replies (--judge-reasoning: in the judge model's)"),
	}, infer.Flags("judge-")...)
}

// checkPrompt accepts a --judge-prompt variant some benchmark has: each
// scorer refuses, on its first record, a variant that is not its own.
func checkPrompt(prompt string, prompts []Prompts) error {
	if prompt == "" {
		return nil
	}
	var each []string
	for _, p := range prompts {
		if slices.Contains(p.Names, prompt) {
			return nil
		}
		each = append(each, strings.Join(p.Names, " or ")+" ("+p.Title+")")
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
func Action(reg map[string]Factory, prompts []Prompts) func(*app.Run) error {
	return func(r *app.Run) error {
		opt := Options{Mode: r.String("judge"), StrictVerdict: r.Bool("strict-verdict"), Prompt: r.String("judge-prompt")}
		if opt.Mode != "llm" && opt.Mode != "lexical" {
			return app.Usagef("--judge %q: want llm or lexical", opt.Mode)
		}
		var err error
		if opt.Reasoning, err = reasoning.ParseMode(r.String("reasoning")); err != nil {
			return app.Usagef("--reasoning %q: %v", r.String("reasoning"), err)
		}
		if err := checkPrompt(opt.Prompt, prompts); err != nil {
			return err
		}
		// --batch-export, --batch-import and --dry-run call nothing, so they
		// need no endpoint.
		offline := r.Bool("batch-export") || len(r.StringSlice("batch-import")) > 0 || r.Bool("dry-run")
		if opt.Mode == "lexical" || (len(r.StringSlice("judge-base-url")) == 0 && !offline) {
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
			return Run(r, reg, opt, nil)
		}
		endpoint, err := infer.OptionsFromFlags(r, "judge-")
		if err != nil {
			return err
		}
		return Run(r, reg, opt, InferProcessor(endpoint))
	}
}
