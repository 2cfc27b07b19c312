package ifscale

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// The project's wording of the official task text (write a business report,
// use each word exactly, no lists, no refusals, <report> tags).
//
//go:embed data/task.txt
var defaultTask string

// ConstraintsHeader opens the keyword list, as in the official prompt.
const ConstraintsHeader = "### CONSTRAINTS"

// constraintLine is the official instruction line.
const constraintLine = "%d. Include the exact word: '%s'."

// Prompt is the task text, the constraints header and one numbered line per
// keyword in list order.
func Prompt(task string, keywords []string) string {
	var sb strings.Builder
	sb.Grow(len(task) + 40*len(keywords) + 20)
	sb.WriteString(strings.TrimRight(task, "\n"))
	sb.WriteString("\n\n" + ConstraintsHeader + "\n")
	for i, kw := range keywords {
		fmt.Fprintf(&sb, constraintLine+"\n", i+1, kw)
	}
	return sb.String()
}

type expander struct {
	task string
	opt  expand.Options
}

// NewExpander builds the IFScale expander; a template file (--template)
// replaces the embedded task text with its own.
func NewExpander(opt expand.Options, template string) (expand.Expander, error) {
	task := defaultTask
	if template != "" {
		b, err := stream.ReadFile(template)
		if err != nil {
			return nil, fmt.Errorf("--template: %w", err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return nil, app.Usagef("--template %s: the file is empty", template)
		}
		task = string(b)
	}
	return &expander{task: task, opt: opt}, nil
}

// DefaultMaxTokens bounds a reply. The official runner sets no max_tokens
// (the provider's default applies); ifkit sets one so that no result depends
// on a server's default (Ollama's is unlimited: a runaway reply once ran to
// 20,480 tokens). A report that uses 500 keywords fits in a few thousand
// tokens; 8,192 leaves room for that and some reasoning. --max-tokens
// overrides it.
const DefaultMaxTokens = 8192

// Expand writes the request: one user message, no temperature (as the
// official runner) and max_tokens DefaultMaxTokens unless the flags say
// otherwise.
func (e *expander) Expand(item *record.Record, emit func(*record.Record) error) error {
	var it Item
	if err := item.Decode("context", &it); err != nil {
		return app.Invalid(err)
	}
	if len(it.Keywords) == 0 {
		return app.Invalidf("ifscale item %q has no context.keywords", item.ID())
	}
	maxTok := DefaultMaxTokens
	if err := item.Set("request", expand.UserChat(Prompt(e.task, it.Keywords), e.opt, &maxTok, nil)); err != nil {
		return err
	}
	if !item.Has("gold") {
		item.Set("gold", Gold{Keywords: it.Keywords})
	}
	return emit(item)
}
