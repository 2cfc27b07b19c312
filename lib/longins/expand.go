package longins

import (
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

// The prompt layouts of the paper's appendix C, in the project's words:
// GIST gives the task once before the exam; LIST and LIMT carry it inside
// every question. The opening line identifies LongIns prompts to llm-sim.
const (
	Opening      = "You are a teacher grading a finished exam: every question below has already been answered."
	gistTaskLine = "All the questions follow this task:"
	gistFindLine = "Find every question whose answer is wrong for this task."
	localLine    = "Each question below, inside square brackets, gives its own task instruction, its question and the answer given."
	Closing      = "Above are the numbered question-and-answer pairs, each inside square brackets. " +
		"Give the numbers of the questions that were answered wrongly, inside square brackets and separated by commas, for example [3, 17]. " +
		"List only wrong answers, never the numbers of correctly answered questions, and keep to this format.\nAnswer:"
)

// Prompt lays out one exam.
func Prompt(c Context) string {
	var sb strings.Builder
	sb.Grow(len(c.Data) + len(c.TaskPrompt) + 600)
	sb.WriteString(Opening + "\n")
	if c.Mode == GIST {
		sb.WriteString(gistTaskLine + "\n" + c.TaskPrompt + "\n" + gistFindLine + "\n")
	} else {
		sb.WriteString(localLine + "\n")
	}
	sb.WriteString(strings.TrimRight(c.Data, "\n"))
	sb.WriteString("\n\n" + Closing)
	return sb.String()
}

type expander struct{ opt expand.Options }

// MaxTokens is the official max_new_tokens (10,000, in the one released
// runner), so that no result depends on a server's default.
const MaxTokens = 10000

// NewExpander builds the LongIns expander: one user message, max_tokens
// MaxTokens, and no temperature unless the flags set one (the official runs
// used each model's own generation settings).
func NewExpander(opt expand.Options) (expand.Expander, error) { return expander{opt}, nil }

func (e expander) Expand(item *record.Record, emit func(*record.Record) error) error {
	var c Context
	if err := item.Decode("context", &c); err != nil {
		return app.Invalid(err)
	}
	if !validMode(c.Mode) {
		return app.Invalidf("longins item %q: context.mode %q: want gist, list or limt", item.ID(), c.Mode)
	}
	if c.Mode == GIST && c.TaskPrompt == "" {
		return app.Invalidf("longins item %q: a gist exam needs context.task_prompt", item.ID())
	}
	maxTok := MaxTokens
	if err := item.Set("request", expand.UserChat(Prompt(c), e.opt, &maxTok, nil)); err != nil {
		return err
	}
	return emit(item)
}
