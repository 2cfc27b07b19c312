package pipelines

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/testbin"
)

var (
	requestsClaim = regexp.MustCompile(`([\d,]+)\s+requests,\s+about\s+([\d.,]+)(\s+million)?\s+prompt\s+tokens`)
	judgeClaim    = regexp.MustCompile(`(about\s+)?([\d,]+)\s+judge\s+requests`)
	dryRunCounts  = regexp.MustCompile(`msg="dry run" .*calls=(\d+) .*prompt_tokens=(\d+)`)
)

// number reads "2,802", "2.6" (× 1e6 with " million").
func number(t *testing.T, s string, million bool) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	if million {
		v *= 1e6
	}
	return v
}

// near says whether measured is what "about claimed" says: within 5 %.
func near(measured, claimed float64) bool { return math.Abs(measured-claimed) <= 0.05*claimed }

// Each script's --help says what its default run sends, and what --limit 1
// sends (issue 28): those numbers are measured here, as the help says they
// were: the requests exactly, the prompt tokens (infer-batch --dry-run,
// o200k_base) within the rounding of "about", and the judge requests (one
// per check of LongGenBench, one per constraint of EifBench) exactly or
// within that rounding; the suite's --help states their sums.
func TestHelpStatesTheRunsSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every benchmark's full default run (2,802 LIFBench prompts); not in -short")
	}
	type claim struct {
		name string
		gen  func(t *testing.T) []string // gen-context's arguments after the benchmark
	}
	// What each benchmark's default and --limit 1 runs measured, which the
	// suite's --help adds up.
	type size struct {
		requests, judges int
		tokens           float64
	}
	measured := map[string]size{}
	none := func(*testing.T) []string { return nil }
	limit1 := func(*testing.T) []string { return []string{"--limit", "1"} }
	ref := func(file string) func(t *testing.T) []string {
		return func(t *testing.T) []string { return []string{"--official", testbin.Reference(t, file)} }
	}
	for _, c := range []struct {
		bench  string
		claims []claim
		checks func(*record.Record) int // judge requests of a request; nil: no LLM judge
	}{
		{"lifbench", []claim{{"default", none}, {"limit 1", limit1}}, nil},
		{"ifscale", []claim{{"default", none}, {"limit 1", limit1}}, nil},
		{"longins", []claim{{"default", none}, {"official GIST_256", ref("longins/GIST_256.json")}, {"limit 1", limit1}}, nil},
		{"longgenbench", []claim{{"default", none}, {"official short", ref("longgenbench/Dataset_short.json")}, {"limit 1", limit1}}, func(rec *record.Record) int {
			var g struct{ Checks map[string]map[string]string }
			rec.Decode("gold", &g)
			return len(g.Checks["single"]) + len(g.Checks["range"]) + len(g.Checks["periodic"])
		}},
		{"eifbench", []claim{{"default", none}, {"limit 1", limit1}}, func(rec *record.Record) int {
			var g struct {
				SubInstructions []struct{ Constraints []string } `json:"sub_instructions"`
			}
			rec.Decode("gold", &g)
			n := 0
			for _, s := range g.SubInstructions {
				n += len(s.Constraints)
			}
			return n
		}},
	} {
		help, err := exec.Command("bash", c.bench+".sh", "--help").Output()
		if err != nil {
			t.Fatalf("%s.sh --help: %v", c.bench, err)
		}
		reqs := requestsClaim.FindAllStringSubmatch(string(help), -1)
		judges := judgeClaim.FindAllStringSubmatch(string(help), -1)
		if len(reqs) != len(c.claims) || c.checks != nil && len(judges) != len(c.claims) || c.checks == nil && len(judges) > 0 {
			t.Errorf("%s.sh --help states %d request counts and %d judge counts, want %d of each (or no judge): %q", c.bench, len(reqs), len(judges), len(c.claims), help)
			continue
		}
		for i, cl := range c.claims {
			t.Run(c.bench+"/"+cl.name, func(t *testing.T) {
				requests := filepath.Join(t.TempDir(), "requests.jsonl.zst")
				gen := exec.Command("bash", "-c", `gen-context "$@" | expand-templates -o `+requests, "-", c.bench)
				gen.Args = append(gen.Args, cl.gen(t)...)
				gen.Env = Env()
				if out, err := gen.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", gen.Args, err, out)
				}
				var stderr bytes.Buffer
				dry := exec.Command(Bin("infer-batch"), "--dry-run", "--model", "m", requests)
				dry.Stdout, dry.Stderr = io.Discard, &stderr
				if err := dry.Run(); err != nil {
					t.Fatalf("infer-batch --dry-run: %v\n%s", err, stderr.String())
				}
				m := dryRunCounts.FindStringSubmatch(stderr.String())
				if m == nil {
					t.Fatalf("no dry run counts in:\n%s", stderr.String())
				}
				calls, _ := strconv.Atoi(m[1])
				tokens, _ := strconv.ParseFloat(m[2], 64)
				measured[c.bench+"/"+cl.name] = size{requests: calls, tokens: tokens}
				claimed := reqs[i]
				if want := number(t, claimed[1], false); float64(calls) != want || !near(tokens, number(t, claimed[2], claimed[3] != "")) {
					t.Errorf("--help says %q; measured %d requests, %.0f prompt tokens", strings.Join(strings.Fields(claimed[0]), " "), calls, tokens)
				}
				if c.checks == nil {
					return
				}
				n := 0
				eachRecord(t, requests, func(rec *record.Record) { n += c.checks(rec) })
				measured[c.bench+"/"+cl.name] = size{calls, n, tokens}
				j := judges[i]
				want := number(t, j[2], false)
				if j[1] == "" && float64(n) != want || j[1] != "" && !near(float64(n), want) {
					t.Errorf("--help says %q; measured %d judge requests (checks)", strings.Join(strings.Fields(j[0]), " "), n)
				}
			})
		}
	}

	// The suite's --help states the sums of the five.
	help, err := exec.Command("bash", "suite.sh", "--help").Output()
	if err != nil {
		t.Fatalf("suite.sh --help: %v", err)
	}
	reqs := requestsClaim.FindAllStringSubmatch(string(help), -1)
	judges := judgeClaim.FindAllStringSubmatch(string(help), -1)
	if len(reqs) != 2 || len(judges) != 2 {
		t.Fatalf("suite.sh --help states %d request counts and %d judge counts, want 2 of each (default, --limit 1): %q", len(reqs), len(judges), help)
	}
	for i, run := range []string{"default", "limit 1"} {
		var sum size
		for _, b := range []string{"lifbench", "ifscale", "longins", "longgenbench", "eifbench"} {
			m, ok := measured[b+"/"+run]
			if !ok {
				t.Fatalf("%s/%s was not measured", b, run)
			}
			sum.requests, sum.tokens, sum.judges = sum.requests+m.requests, sum.tokens+m.tokens, sum.judges+m.judges
		}
		r, j := reqs[i], judges[i]
		wantJudges := number(t, j[2], false)
		if float64(sum.requests) != number(t, r[1], false) || !near(sum.tokens, number(t, r[2], r[3] != "")) ||
			j[1] == "" && float64(sum.judges) != wantJudges || j[1] != "" && !near(float64(sum.judges), wantJudges) {
			t.Errorf("suite.sh --help says %q and %q for the %s runs; the five add up to %d requests, %.0f prompt tokens, %d judge requests",
				strings.Join(strings.Fields(r[0]), " "), strings.Join(strings.Fields(j[0]), " "), run, sum.requests, sum.tokens, sum.judges)
		}
	}
}

// eachRecord calls fn with every record of a JSON Lines file.
func eachRecord(t *testing.T, path string, fn func(*record.Record)) {
	t.Helper()
	in, err := stream.Open(path, os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	for {
		line, _, err := in.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		rec, err := record.Parse(line)
		if err != nil {
			t.Fatal(fmt.Errorf("%s: %w", path, err))
		}
		fn(rec)
	}
}
