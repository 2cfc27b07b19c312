package browser

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/testbin"
)

// answer runs the pipeline for one model of llm-sim on the items in dir
// (requests.jsonl.zst) and judges its replies into a partitioned folder of
// its own: two such folders are two runs, read side by side.
func answer(t *testing.T, dir, url, model string, judgeArgs ...string) string {
	t.Helper()
	resp := model + "-responses.jsonl.zst"
	prog(t, dir, "infer-batch", "--base-url", url, "--model", model, "-j", "16", "--progress", "never", "-o", resp, "requests.jsonl.zst")
	in := resp
	if len(judgeArgs) > 0 { // an LLM-judged benchmark: split the replies first
		in = model + "-checks.jsonl.zst"
		prog(t, dir, "split-subtasks", "--progress", "never", "-o", in, resp)
	}
	out := model + "-judged/"
	prog(t, dir, append(append([]string{"judge", "--progress", "never"}, judgeArgs...), "-o", out, "--partition-by", "bench", in)...)
	return filepath.Join(dir, out)
}

// twoModels writes the judged records of two simulated models, a strong
// and a weak one, on LIFBench at 1k tokens and LongIns exams of 256 and 512
// tokens, each model's in its own folder, and returns the folders.
func twoModels(t *testing.T, dir string) (strong, weak string) {
	t.Helper()
	url := testbin.StartSim(t, "--model", "sim-strong=0.95", "--model", "sim-weak=0.5", "--seed", "3")
	prog(t, dir, "gen-context", "lifbench", "--lengths", "1k", "--progress", "never", "-o", "lifbench.jsonl.zst")
	prog(t, dir, "gen-context", "longins", "--lengths", "256,512", "--modes", "gist", "--progress", "never", "-o", "longins.jsonl.zst")
	prog(t, dir, "expand-templates", "--progress", "never", "-o", "requests.jsonl.zst", "lifbench.jsonl.zst", "longins.jsonl.zst")
	return answer(t, dir, url, "sim-strong"), answer(t, dir, url, "sim-weak")
}

// rewrite passes the records of a judged folder through edit and writes
// them, through split-subtasks (which passes judged records on), into a
// folder of their own under dir: a run of its own, as answer's are.
func rewrite(t *testing.T, dir, from, name string, edit func(i int, rec map[string]any)) string {
	t.Helper()
	var lines []string
	for i, rec := range records(t, from) {
		edit(i, rec)
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	write(t, filepath.Join(dir, name+".jsonl"), strings.Join(lines, "\n")+"\n")
	prog(t, dir, "split-subtasks", "--progress", "never", "-o", name+"/", "--partition-by", "bench", name+".jsonl")
	return filepath.Join(dir, name)
}

// records reads every record of a judged folder (or file), decoded.
func records(t *testing.T, path string) []map[string]any {
	t.Helper()
	var files []string
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".zst" {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	} else {
		files = []string{path}
	}
	var out []map[string]any
	for _, f := range files {
		in, err := stream.Open(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		for {
			line, _, err := in.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		in.Close()
	}
	return out
}

// field reads a nested field of a decoded record ("" when absent or not a
// string).
func field(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

func str(m map[string]any, path ...string) string {
	s, _ := field(m, path...).(string)
	return s
}
