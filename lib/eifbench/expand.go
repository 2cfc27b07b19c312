package eifbench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

// Sampling defaults of the official configuration (temperature 0). The
// official code sets no max_tokens; a reply to 6–12 sub-instructions needs
// room, so the default is generous and --max-tokens overrides it.
const (
	defaultTemperature = 0.0
	defaultMaxTokens   = 8192
)

// The prompt's fixed lines. The sim and the splitter recognise the prompt and
// its answers by them, so they are defined once.
const (
	systemPrompt     = "You are a helpful assistant."
	sourceHeading    = "=== SOURCE MATERIAL ==="
	subsHeading      = "=== SUB-INSTRUCTIONS"
	subLinePrefix    = "Sub-instruction "
	constraintsLabel = "Constraints for sub-instruction "
)

const promptHead = `You will receive some source material and a numbered list of sub-instructions about it. Each sub-instruction comes with constraints that its answer must meet.

How to answer:
- Answer every sub-instruction, in the order given, and meet all of its constraints.
- Put the answer to sub-instruction k between a line "start_sub_instruction_k" and a line "end_sub_instruction_k", each marker alone on its line, where k is the sub-instruction's number.
- Keep each answer to its own sub-instruction, and do not copy the source material back.
- Write the answers in the language of the sub-instructions, and nothing outside the markers.

With two sub-instructions, for example, the reply has this shape:
start_sub_instruction_1
(the answer to sub-instruction 1)
end_sub_instruction_1
start_sub_instruction_2
(the answer to sub-instruction 2)
end_sub_instruction_2

`

// StartMarker and EndMarker delimit the answer to sub-instruction k (from 1).
func StartMarker(k int) string { return "start_sub_instruction_" + strconv.Itoa(k) }

// EndMarker closes the answer to sub-instruction k.
func EndMarker(k int) string { return "end_sub_instruction_" + strconv.Itoa(k) }

// Prompt is the whole user message for a task: the input, then every
// sub-instruction with all its constraints. It is never split or cut,
// however long it gets (the official code splits prompts over 8,192
// characters and then loses the second half).
func Prompt(t *Task) string {
	var b strings.Builder
	b.WriteString(promptHead)
	b.WriteString(sourceHeading + "\n")
	b.WriteString(strings.TrimSpace(t.Input))
	fmt.Fprintf(&b, "\n\n%s (%d) ===\n", subsHeading, len(t.Subs))
	for i, s := range t.Subs {
		k := i + 1
		fmt.Fprintf(&b, "\n%s%d: %s\n", subLinePrefix, k, oneLine(s.Instruction))
		fmt.Fprintf(&b, "%s%d:\n", constraintsLabel, k)
		for j, c := range s.Constraints {
			fmt.Fprintf(&b, "  %d. %s\n", j+1, oneLine(c))
		}
	}
	return b.String()
}

type expander struct{ opt expand.Options }

// NewExpander is the expand-templates expander for eifbench.
func NewExpander(opt expand.Options) (expand.Expander, error) { return expander{opt}, nil }

// openExpand refuses, on the first EifBench item, the template files other
// benchmarks take (LIFBench's --templates, IFScale's --template): EifBench
// has one built-in prompt layout, and a file given for it would be ignored.
func openExpand(r *app.Run) (expand.Factory, error) {
	given := r.String("templates") != "" || r.String("template") != ""
	return func(opt expand.Options) (expand.Expander, error) {
		if given {
			return nil, app.Usagef("eifbench has one built-in prompt layout; --templates/--template do not apply")
		}
		return NewExpander(opt)
	}, nil
}

// Expand emits one request per task, with all sub-instructions in it.
func (e expander) Expand(item *record.Record, emit func(*record.Record) error) error {
	t, err := taskFromItem(item)
	if err != nil {
		return app.Invalid(err)
	}
	temp, maxTok := defaultTemperature, defaultMaxTokens
	req := expand.UserChat(Prompt(t), e.opt, &maxTok, &temp)
	req.Messages = append([]expand.ChatMessage{{Role: "system", Content: systemPrompt}}, req.Messages...)
	out := item.Clone()
	if err := out.Set("request", req); err != nil {
		return err
	}
	if err := out.Set("gold", itemGold{Subset: t.Subset, Input: t.Input, Subs: t.Subs}); err != nil {
		return err
	}
	return emit(out)
}
