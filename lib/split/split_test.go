package split

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
)

// halves splits "text" of the response in two children.
func halves(rec *record.Record, emit func(*record.Record) error) error {
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		return err
	}
	for i, part := range strings.SplitN(resp.Text, " ", 2) {
		b, err := record.Marshal(map[string]string{"id": ChildID(rec.ID(), []string{"a", "b"}[i]), "bench": "halves", "parent": rec.ID(), "part": part})
		if err != nil {
			return err
		}
		child, err := record.Parse(b)
		if err != nil {
			return err
		}
		if err := emit(child); err != nil {
			return err
		}
	}
	return nil
}

// Run routes by bench: a registered bench is split and its children carry
// the parent's response without the long text, and its reasoning budget;
// other records, and children already split, pass through byte for byte.
func TestRun(t *testing.T) {
	whole := `{"id":"w","bench":"lifbench","response":{"text":"kept","finish_reason":"stop"},"x":1.50}`
	child := `{"id":"p#a","bench":"halves","parent":"p","part":"again"}`
	in := strings.Join([]string{
		`{"id":"p","bench":"halves","reasoning_budget":512,"response":{"text":"left right","reasoning":"long thoughts","usage":{"prompt_tokens":3,"completion_tokens":2},"endpoint":"e1"}}`,
		whole,
		child,
	}, "\n") + "\n"
	tool := app.Tool{Name: "split-subtasks", Action: func(r *app.Run) error {
		return Run(r, map[string]Splitter{"halves": halves}, reasoning.Strip)
	}}
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr bytes.Buffer
	code := app.RunTool(tool, []string{"split-subtasks"}, app.Env{Stdin: strings.NewReader(in), Stdout: out, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d records:\n%s", len(lines), b)
	}
	for i, want := range []string{"left", "right"} {
		rec, err := record.Parse([]byte(lines[i]))
		if err != nil {
			t.Fatal(err)
		}
		var resp record.Response
		rec.Decode("response", &resp)
		if rec.String("part") != want || resp.Text != "" || resp.Reasoning != "" || resp.Usage.CompletionTokens != 2 || resp.Endpoint != "e1" || string(rec.Raw("reasoning_budget")) != "512" {
			t.Errorf("child %d: %s", i, lines[i])
		}
	}
	if lines[2] != whole || lines[3] != child {
		t.Errorf("pass-through changed records:\n%s\n%s", lines[2], lines[3])
	}
}

// A reply that still holds a reasoning trace is split after the trace
// (--reasoning strip), or as received (keep); one whose trace never ended
// fails with reasoning_unfinished and is split all the same (its answer is
// empty), so that its checks are counted.
func TestRunStripsTraces(t *testing.T) {
	in := `{"id":"p","bench":"halves","response":{"text":"<think>\nthe left right\n</think>\n\nup down","finish_reason":"stop"}}
{"id":"q","bench":"halves","response":{"text":"<think>\nleft right, still","finish_reason":"length"}}
`
	for _, tc := range []struct {
		mode  reasoning.Mode
		parts []string
		code  int
	}{
		{reasoning.Strip, []string{"p up", "p down", "q "}, 0},
		{reasoning.Keep, []string{"p <think>\nthe", "p left right\n</think>\n\nup down", "q <think>\nleft", "q right, still"}, 0},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			tool := app.Tool{Name: "split-subtasks", Action: func(r *app.Run) error {
				return Run(r, map[string]Splitter{"halves": halves}, tc.mode)
			}}
			out, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			var stderr bytes.Buffer
			code := app.RunTool(tool, []string{"split-subtasks", "--max-failures", "inf"}, app.Env{Stdin: strings.NewReader(in), Stdout: out, Stderr: &stderr, Getenv: func(string) string { return "" }})
			if code != tc.code {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			b, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				rec, err := record.Parse([]byte(line))
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, rec.String("parent")+" "+rec.String("part"))
			}
			if strings.Join(parts, "|") != strings.Join(tc.parts, "|") {
				t.Errorf("parts %q, want %q", parts, tc.parts)
			}
			failed := strings.Contains(stderr.String(), "kind=reasoning_unfinished")
			if failed != (tc.mode == reasoning.Strip) {
				t.Errorf("reasoning_unfinished in the summary: %v, want %v:\n%s", failed, tc.mode == reasoning.Strip, stderr.String())
			}
		})
	}
}
