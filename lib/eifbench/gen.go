package eifbench

import (
	_ "embed"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// sampleJSON is the project's own English sample set, in the official file
// layout plus a "subset" field per task.
//
//go:embed data/sample.json
var sampleJSON []byte

// GenOptions are the gen-context eifbench flags.
type GenOptions struct {
	Official []string // official files (sorted_party100.json, ...); none: the sample set
	Subset   string   // official files: their subset (default: from each file name); sample set: keep only this subset
}

// EmitTasks emits one item record per task of LoadTasks, in order; a main_id
// twice in one subset is bad input.
func EmitTasks(tasks []*Task, emit func(*record.Record) error) error {
	seen := map[string]bool{}
	for _, t := range tasks {
		if seen[t.ID] {
			return fmt.Errorf("%s: main_id %d appears twice in subset %s", t.Source, t.MainID, t.Subset)
		}
		seen[t.ID] = true
		if err := emit(t.Item()); err != nil {
			return err
		}
	}
	return nil
}

// LoadTasks reads the official files, or the embedded sample set.
func LoadTasks(opt GenOptions) ([]*Task, error) {
	var want string
	if opt.Subset != "" {
		s, err := ParseSubset(opt.Subset)
		if err != nil {
			return nil, app.Usagef("--subset: %v", err)
		}
		want = s
	}
	if len(opt.Official) == 0 {
		tasks, err := ParseTasks(sampleJSON, "sample", "")
		if err != nil {
			return nil, fmt.Errorf("embedded sample set: %w", err)
		}
		if want == "" {
			return tasks, nil
		}
		var kept []*Task
		for _, t := range tasks {
			if t.Subset == want {
				kept = append(kept, t)
			}
		}
		return kept, nil
	}
	var all []*Task
	for _, f := range opt.Official {
		subset := want
		if subset == "" {
			s, ok := subsetFromName(f)
			if !ok {
				return nil, app.Usagef("%s: cannot tell the subset from the file name; give --subset plain_text|dyadic|multi_party", f)
			}
			subset = s
		}
		b, err := stream.ReadFile(f)
		if err != nil {
			return nil, err
		}
		tasks, err := ParseTasks(b, filepath.Base(f), subset)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, tasks...)
	}
	return all, nil
}

// subsetFromName maps the official file names (sorted_party100.json,
// sorted_dialogue450.json, sorted_single450.json) to their subsets.
func subsetFromName(path string) (string, bool) {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.Contains(base, "party"):
		return MultiParty, true
	case strings.Contains(base, "dialog"):
		return Dyadic, true
	case strings.Contains(base, "single"), strings.Contains(base, "plain"):
		return PlainText, true
	}
	return "", false
}

// officialTask is one element of an official file. Subset is the sample
// set's extension; official files have none.
type officialTask struct {
	MainID          *int                          `json:"main_id"`
	Input           string                        `json:"input"`
	Subset          string                        `json:"subset"`
	SubInstructions map[string]officialSubInstruc `json:"sub_instructions"`
}

type officialSubInstruc struct {
	Instruction      string   `json:"instruction"`
	ScoringQuestions []string `json:"scoring_questions"`
}

var subKey = regexp.MustCompile(`(\d+)$`)

// ParseTasks reads a JSON array in the official layout. subset is used for
// every task when set; otherwise each task must carry its own "subset".
func ParseTasks(b []byte, source, subset string) ([]*Task, error) {
	var raws []map[string]any
	if err := record.Unmarshal(b, &raws); err != nil {
		return nil, fmt.Errorf("not a JSON array of EifBench tasks: %w", err)
	}
	var ots []officialTask
	if err := record.Unmarshal(b, &ots); err != nil {
		return nil, fmt.Errorf("not a JSON array of EifBench tasks: %w", err)
	}
	tasks := make([]*Task, 0, len(ots))
	for i, ot := range ots {
		if ot.MainID == nil {
			return nil, fmt.Errorf("task %d: no main_id", i)
		}
		if len(ot.SubInstructions) == 0 {
			return nil, fmt.Errorf("task %d (main_id %d): no sub_instructions", i, *ot.MainID)
		}
		s := subset
		if s == "" {
			var err error
			if s, err = ParseSubset(ot.Subset); err != nil {
				return nil, fmt.Errorf("task %d (main_id %d): %w", i, *ot.MainID, err)
			}
		}
		t := &Task{
			ID:     fmt.Sprintf("%s-%s-%d", Bench, s, *ot.MainID),
			Subset: s,
			Input:  ot.Input,
			Source: source,
			MainID: *ot.MainID,
			Meta:   meta(raws[i]),
		}
		keys := make([]string, 0, len(ot.SubInstructions))
		for k := range ot.SubInstructions {
			if !subKey.MatchString(k) {
				return nil, fmt.Errorf("task %d (main_id %d): sub-instruction key %q has no number", i, *ot.MainID, k)
			}
			keys = append(keys, k)
		}
		// Numeric order: sub_instruction_10 comes after sub_instruction_9.
		sort.Slice(keys, func(a, b int) bool { return keyNum(keys[a]) < keyNum(keys[b]) })
		for _, k := range keys {
			si := ot.SubInstructions[k]
			if strings.TrimSpace(si.Instruction) == "" {
				return nil, fmt.Errorf("task %d (main_id %d): %s has no instruction", i, *ot.MainID, k)
			}
			t.Subs = append(t.Subs, SubInstruction{Key: k, Instruction: si.Instruction, Constraints: si.ScoringQuestions})
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

func keyNum(k string) int {
	n, _ := strconv.Atoi(subKey.FindString(k))
	return n
}

// meta keeps the official descriptive fields (group, category, task_types,
// ...) that the pipeline does not use, so they reach the records.
func meta(raw map[string]any) map[string]any {
	m := map[string]any{}
	for k, v := range raw {
		switch k {
		case "main_id", "input", "sub_instructions", "subset":
			continue
		}
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		if l, ok := v.([]any); ok && len(l) == 0 {
			continue
		}
		m[k] = v
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// itemContext is the "context" of an item: the input material and where it
// came from.
type itemContext struct {
	Input  string         `json:"input"`
	Chars  int            `json:"chars"`
	Source string         `json:"source"`
	MainID int            `json:"main_id"`
	Meta   map[string]any `json:"meta,omitempty"`
}

// itemGold is the "gold" of an item and of its request: the sub-instructions
// and their constraints, and the input the judge shows.
type itemGold struct {
	Subset string           `json:"subset"`
	Input  string           `json:"input,omitempty"`
	Subs   []SubInstruction `json:"sub_instructions"`
}

// Item is the gen-context record of a task.
func (t *Task) Item() *record.Record {
	rec := record.New(t.ID)
	rec.Set("bench", Bench)
	rec.Set("task", t.Subset)
	rec.Set("group", map[string]string{
		"subset":           t.Subset,
		"sub_instructions": strconv.Itoa(len(t.Subs)),
		"constraints":      strconv.Itoa(t.Constraints()),
	})
	rec.Set("context", itemContext{Input: t.Input, Chars: len([]rune(t.Input)), Source: t.Source, MainID: t.MainID, Meta: t.Meta})
	rec.Set("gold", itemGold{Subset: t.Subset, Subs: t.Subs})
	return rec
}

// taskFromItem reads a gen-context record back.
func taskFromItem(rec *record.Record) (*Task, error) {
	var c itemContext
	var g itemGold
	if err := rec.Decode("context", &c); err != nil {
		return nil, err
	}
	if err := rec.Decode("gold", &g); err != nil {
		return nil, err
	}
	if len(g.Subs) == 0 {
		return nil, fmt.Errorf("gold.sub_instructions is empty: not an EifBench item from gen-context")
	}
	subset := g.Subset
	if subset == "" {
		subset = rec.String("task")
	}
	return &Task{ID: rec.ID(), Subset: subset, Input: c.Input, Subs: g.Subs, Source: c.Source, MainID: c.MainID}, nil
}
