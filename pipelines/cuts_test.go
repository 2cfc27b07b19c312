package pipelines

import (
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// A metric row counts its n_truncated among what its n counts (issue 30:
// LIFBench's IFS rows said n 6, n_truncated 467): on every benchmark run
// against a server that cut some of its prompts, no row has more cut items
// than items, and some rows have cut ones.
func TestTruncatedRowsWithinN(t *testing.T) {
	for _, c := range []struct {
		bench, gen, ctx, judge string
	}{
		{"lifbench", "gen-context lifbench --lengths 4k", "2048", "judge"},
		{"ifscale", "gen-context ifscale --densities 10,100,300 --seeds 0,1", "1200", "judge"},
		{"longins", "gen-context longins --lengths 256,1024", "700", "judge"},
		{"longgenbench", "gen-context longgenbench --count 2 --scenarios menu", "200", "split-subtasks | judge --judge lexical"},
		{"eifbench", "gen-context eifbench", "900", "split-subtasks | judge --judge-base-url $URL -j 8"},
	} {
		t.Run(c.bench, func(t *testing.T) {
			url := StartSim(t, "--max-model-len", c.ctx, "--overflow", "truncate")
			judge := strings.ReplaceAll(c.judge, "$URL", url)
			out, stderr, code := sh(t, c.gen+" | expand-templates | infer-batch -j 8 --base-url "+url+" | "+judge+" | aggregate-ifs --format jsonl")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			cut := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					Metric     string            `json:"metric"`
					N          int               `json:"n"`
					NTruncated int               `json:"n_truncated"`
					Dims       map[string]string `json:"-"`
				}
				if err := record.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				if r.NTruncated > r.N {
					t.Errorf("n_truncated %d > n %d: %s", r.NTruncated, r.N, line)
				}
				cut += r.NTruncated
			}
			if cut == 0 {
				t.Errorf("no row counts a cut item: the server cut nothing, the test shows nothing:\n%s", stderr)
			}
		})
	}
}
