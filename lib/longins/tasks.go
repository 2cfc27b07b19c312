package longins

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// The project's own task source: tasks whose answers a program can check
// (arithmetic, digit sums, sorting, word reversal, counting), one
// Super-NaturalInstructions-style task per line.
//
//go:embed data/tasks.jsonl
var embeddedTasks []byte

// DefaultSource names the embedded task source in records.
const DefaultSource = "ifkit-checkable-tasks"

// Instance is one input/output pair of a task. Output is the answer shown;
// Accepted holds every answer the source lists as right (Output first), so
// that no accepted answer is ever used as a wrong one.
type Instance struct {
	Input    string
	Output   string
	Accepted []string
}

// accepts reports whether answer is one of the instance's right answers.
func (in Instance) accepts(answer string) bool {
	if len(in.Accepted) == 0 {
		return answer == in.Output
	}
	return slices.Contains(in.Accepted, answer)
}

// Task is an instruction with its instances.
type Task struct {
	Name       string
	Definition string
	Category   string
	Instances  []Instance
}

// sniTask is the Super-NaturalInstructions task layout (tasks/taskNNN_*.json);
// "Name" is ifkit's addition for files that hold several tasks.
type sniTask struct {
	Name       string   `json:"Name"`
	Definition []string `json:"Definition"`
	Categories []string `json:"Categories"`
	Instances  []struct {
		Input  string   `json:"input"`
		Output []string `json:"output"`
	} `json:"Instances"`
}

// DefaultTasks returns the embedded task source.
func DefaultTasks() []Task {
	ts, err := ParseTasks(embeddedTasks, "")
	if err != nil {
		panic("embedded tasks: " + err.Error())
	}
	return ts
}

// LoadTasks reads task files: a Super-NaturalInstructions task JSON (the
// task is named after the file), a JSON array of such objects, or JSON
// Lines of them, each with a "Name".
func LoadTasks(paths ...string) ([]Task, error) {
	var all []Task
	names := map[string]string{}
	for _, p := range paths {
		b, err := stream.ReadFile(p)
		if err != nil {
			return nil, err
		}
		ts, err := ParseTasks(b, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, t := range ts {
			if prev, dup := names[t.Name]; dup {
				return nil, fmt.Errorf("%s: task %q is also in %s", p, t.Name, prev)
			}
			names[t.Name] = p
		}
		all = append(all, ts...)
	}
	return all, nil
}

// ParseTasks reads one task source; fileName names a lone task without a
// "Name". Every task needs a definition and instances.
func ParseTasks(b []byte, fileName string) ([]Task, error) {
	b = bytes.TrimSpace(b)
	var raw []sniTask
	switch {
	case len(b) == 0:
		return nil, errors.New("the task source is empty")
	case b[0] == '[':
		if err := record.Unmarshal(b, &raw); err != nil {
			return nil, err
		}
	default:
		var one sniTask
		if err := record.Unmarshal(b, &one); err == nil {
			if one.Name == "" {
				one.Name = fileName
			}
			raw = []sniTask{one}
			break
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<30)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var t sniTask
			if err := record.Unmarshal(sc.Bytes(), &t); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			if t.Name == "" {
				return nil, fmt.Errorf("line %d: a task in a multi-task file needs a \"Name\"", line)
			}
			raw = append(raw, t)
		}
	}
	if len(raw) == 0 {
		return nil, errors.New("the task source has no tasks")
	}
	seen := map[string]bool{}
	out := make([]Task, 0, len(raw))
	for _, r := range raw {
		if r.Name == "" {
			return nil, errors.New("a task has no \"Name\"")
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("task %q appears twice", r.Name)
		}
		seen[r.Name] = true
		def := strings.TrimSpace(strings.Join(r.Definition, " "))
		if def == "" {
			return nil, fmt.Errorf("task %q has no Definition", r.Name)
		}
		t := Task{Name: r.Name, Definition: def}
		if len(r.Categories) > 0 {
			t.Category = r.Categories[0]
		}
		for i, in := range r.Instances {
			if len(in.Output) == 0 {
				return nil, fmt.Errorf("task %q: instance %d has no output", r.Name, i)
			}
			acc := make([]string, len(in.Output))
			for j, o := range in.Output {
				acc[j] = strings.TrimSpace(o)
			}
			t.Instances = append(t.Instances, Instance{Input: strings.TrimSpace(in.Input), Output: acc[0], Accepted: acc})
		}
		if len(t.Instances) == 0 {
			return nil, fmt.Errorf("task %q has no instances", r.Name)
		}
		out = append(out, t)
	}
	return out, nil
}
