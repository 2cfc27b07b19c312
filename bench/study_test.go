package bench_test

import (
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/simrun"
	"github.com/ifkit/ifkit/lib/testprograms"
)

// quick sizes each family's study for make test: 4 to 12 s each, 40 s in
// all on this project's machine. STUDY_RUNS=200 (bench/stats/run.sh) runs the full study.
var quick = map[string]simrun.StudyOptions{
	"lifbench":     {Runs: 40, Seeds: 8, Pool: 96, Replicates: 4},
	"ifscale":      {Runs: 100, Seeds: 10, Pool: 120, Replicates: 6},
	"longins":      {Runs: 100, Seeds: 1, Pool: 40, Replicates: 6},
	"longgenbench": {Runs: 60, Seeds: 10, Pool: 120, Replicates: 4},
	"eifbench":     {Runs: 30, Seeds: 8, Pool: 96, Replicates: 3},
}

// The intervals and comparisons aggregate-ifs prints, checked against known
// truth (issue 24): for each benchmark, many small runs of llm-sim models of
// known skill (their own items, drawn from a pool, and their own answers),
// each aggregated by aggregate-ifs itself. The nominal 95 % interval of the
// headline metric must hold the value of a large run (the truth) in 90–99 %
// of the runs; two models of equal skill compared with --compare must be
// called different in at most ~5 % of the pairs; and a model 5 skill points
// better must be found at about the rate its printed minimum detectable
// difference predicts. With few runs (make test) the bands widen to three
// binomial standard deviations around the nominal rates; the full study's
// numbers are in bench/README.md.
func TestIntervalStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the study runs hundreds of small benchmark runs (make test runs it; STUDY_RUNS=200 the full size)")
	}
	if testprograms.Race {
		// One goroutine's arithmetic, which the race detector makes seven
		// times slower (9 minutes) and has nothing to find in.
		t.Skip("-race: make test runs the study without the race detector")
	}
	full, _ := strconv.Atoi(os.Getenv("STUDY_RUNS"))
	for _, f := range simrun.Families {
		size := quick[f.Bench]
		size.Skill, size.Delta, size.Bootstrap = 0.7, 0.05, 1000
		if full > 0 {
			size.Runs, size.Pool, size.Replicates, size.Bootstrap = full, 2*size.Pool, 8, 2000
		}
		t.Run(f.Bench, func(t *testing.T) {
			lab, err := simrun.New(benches.All, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := lab.Study(f, size)
			if err != nil {
				t.Fatal(err)
			}
			// | bench | runs | units | coverage | equal called | Δ truth | detected | predicted | seconds |
			t.Logf("| %s | %d | %.0f | %d/%d = %.3f | %d/%d = %.3f | %.4g | %d/%d = %.2f | %.2f | %.0f |", f.Bench, res.Runs, res.Units,
				res.Covered, res.Intervals, res.Coverage(), res.EqualCalled, res.Equal, rate(res.EqualCalled, res.Equal),
				res.DeltaTruth, res.Detected, res.Compared, rate(res.Detected, res.Compared), res.Predicted, time.Since(start).Seconds())
			if res.Intervals < res.Runs*9/10 {
				t.Errorf("only %d of %d runs had an interval", res.Intervals, res.Runs)
			}
			lo, hi := band(0.95, res.Intervals)
			if c := res.Coverage(); c < min(0.90, lo) || c > max(0.99, hi) {
				t.Errorf("coverage %.3f of the 95 %% intervals, want 90–99 %% (%.3f–%.3f for %d runs)", c, min(0.90, lo), max(0.99, hi), res.Intervals)
			}
			if _, hi := band(0.05, res.Equal); rate(res.EqualCalled, res.Equal) > hi {
				t.Errorf("models of equal skill called different in %d of %d pairs, want at most ~5 %% (%.3f)", res.EqualCalled, res.Equal, hi)
			}
			lo, hi = band(res.Predicted, res.Compared)
			if d := rate(res.Detected, res.Compared); d < lo-0.05 || d > hi+0.05 {
				t.Errorf("a difference of %.4g found in %.2f of the runs, its printed MDDs predict %.2f", res.DeltaTruth, d, res.Predicted)
			}
		})
	}
}

func rate(k, n int) float64 { return float64(k) / float64(n) }

// band is three binomial standard deviations around p for n runs.
func band(p float64, n int) (float64, float64) {
	sd := math.Sqrt(p * (1 - p) / float64(max(n, 1)))
	return p - 3*sd, p + 3*sd
}
