package eifbench

import (
	"fmt"
	"strings"
)

// Bench is the record's "bench" value.
const Bench = "eifbench"

// The three subsets of the paper, as "task" and group "subset" values.
const (
	PlainText  = "plain_text"
	Dyadic     = "dyadic"
	MultiParty = "multi_party"
)

// Subsets lists the subsets in the order of the paper's Table 4.
var Subsets = []string{PlainText, Dyadic, MultiParty}

// subsetTitles are the column headings of Table 4.
var subsetTitles = map[string]string{
	PlainText:  "Plain Text",
	Dyadic:     "Dyadic Dialogue",
	MultiParty: "Multi-party Dialogue",
}

// ParseSubset accepts the subset names and a few spellings of them.
func ParseSubset(s string) (string, error) {
	switch strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(s))) {
	case "plain_text", "plain", "single", "text":
		return PlainText, nil
	case "dyadic", "dialogue", "dyadic_dialogue":
		return Dyadic, nil
	case "multi_party", "party", "multiparty", "multi_party_dialogue":
		return MultiParty, nil
	}
	return "", fmt.Errorf("unknown EifBench subset %q (want plain_text, dyadic or multi_party)", s)
}

// SubInstruction is one sub-instruction with its constraints. Key is the
// official name (sub_instruction_0, ...); prompts and markers number the
// sub-instructions from 1 in their order.
type SubInstruction struct {
	Key         string   `json:"key"`
	Instruction string   `json:"instruction"`
	Constraints []string `json:"constraints"`
}

// Task is one EifBench instance.
type Task struct {
	ID     string           // record id
	Subset string           // PlainText, Dyadic or MultiParty
	Input  string           // the material the sub-instructions are about
	Subs   []SubInstruction // in their numeric order
	Source string           // "sample" or the official file's name
	MainID int              // the official main_id (or the sample's)
	Meta   map[string]any   // other official fields (group, category, task_types, ...)
}

// Constraints counts all constraints of the task.
func (t *Task) Constraints() int { return countConstraints(t.Subs) }

func countConstraints(subs []SubInstruction) int {
	n := 0
	for _, s := range subs {
		n += len(s.Constraints)
	}
	return n
}

// oneLine folds the whitespace of a constraint or instruction onto one line,
// so the prompt keeps its line structure; the judge sees the same folded text.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
