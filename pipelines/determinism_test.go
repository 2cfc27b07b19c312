package pipelines

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// aggregate-ifs is deterministic: the same input gives byte-identical output
// in every format, run after run (no sum follows map order). EifBench and
// LongGenBench sum per task in id order, so a shuffled input gives the same
// bytes too; LIFBench, IFScale and LongIns sum in input order, as the
// official pandas code does.
func TestAggregatesAreDeterministic(t *testing.T) {
	url := StartSim(t, "--skill", "0.7")
	dir := t.TempDir()
	judged := map[string]string{}
	for bench, gen := range map[string]string{
		"lifbench":     "gen-context lifbench --lengths 4k",
		"ifscale":      "gen-context ifscale --densities 10,50 --seeds 0,1,2",
		"longins":      "gen-context longins --lengths 256,512",
		"eifbench":     "{ gen-context eifbench -o e.jsonl && head -40 e.jsonl; }",
		"longgenbench": "gen-context longgenbench --count 3 --scenarios diary,menu",
	} {
		out := filepath.Join(dir, bench+".jsonl")
		cmd := exec.Command("bash", "-o", "pipefail", "-c", gen+" | expand-templates | infer-batch -j 16 --max-failures inf | split-subtasks | judge --judge-base-url "+url+" --max-failures inf > "+out)
		cmd.Dir, cmd.Env = dir, Env("OPENAI_BASE_URL="+url)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bench, err, b)
		}
		judged[bench] = out
	}
	run := func(format string, files ...string) []byte {
		cmd := exec.Command(Bin("aggregate-ifs"), append([]string{"--format", format}, files...)...)
		// Rows say when they were made: SOURCE_DATE_EPOCH fixes "created".
		cmd.Env = Env("SOURCE_DATE_EPOCH=1764000000")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("aggregate-ifs --format %s: %v", format, err)
		}
		return out
	}
	var all []string
	for _, f := range judged {
		all = append(all, f)
	}
	again := 5 // map order differs from run to run: several runs show it
	if testing.Short() {
		again = 1
	}
	for _, format := range []string{"md", "csv", "jsonl", "json"} {
		first := run(format, all...)
		for range again {
			if got := run(format, all...); !bytes.Equal(got, first) {
				t.Fatalf("--format %s: two runs over the same input differ", format)
			}
		}
	}
	for _, bench := range []string{"eifbench", "longgenbench"} {
		data, _ := os.ReadFile(judged[bench])
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n")+"\n", "\n")
		lines = lines[:len(lines)-1]
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		shuffled := filepath.Join(dir, bench+"-shuffled.jsonl")
		os.WriteFile(shuffled, []byte(strings.Join(lines, "")), 0o644)
		// The run id hashes the input's bytes, which the shuffle changed.
		runID := regexp.MustCompile(`"run":"[0-9a-f]*"`)
		if a, b := runID.ReplaceAll(run("jsonl", judged[bench]), nil), runID.ReplaceAll(run("jsonl", shuffled), nil); !bytes.Equal(a, b) {
			t.Errorf("%s: a shuffled input gives other numbers", bench)
		}
	}
}
