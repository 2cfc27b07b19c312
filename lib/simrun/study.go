package simrun

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Family is how a study draws the runs of one benchmark: the requests of a
// run made from some item seeds (a large run uses many), and the row whose
// interval and comparison it checks.
type Family struct {
	Bench    string
	Items    func(l *Lab, seeds []int) ([]*record.Record, error)
	Headline func(report.Row) bool
}

// StudyOptions size a study.
type StudyOptions struct {
	Runs  int // small runs
	Seeds int // item seeds per small run
	// Pool, when set, is a finite population of item seeds: each small run
	// draws its seeds from it at random (a study of many runs then makes
	// each item once), and the large run is the whole pool. Else every run
	// has seeds of its own, and the large run Large more.
	Pool, Large int
	// Replicates are the large run's answers: the truth is their mean, so
	// that the large run's own noise is small beside a small run's.
	Replicates int
	Skill      float64 // the models' skill
	Delta      float64 // the third model's skill is Skill + Delta
	Bootstrap  int     // resamples per interval
}

// StudyResult is what the small runs found against the large run.
type StudyResult struct {
	Runs      int
	Truth     float64 // the headline metric of the large run, at Skill
	Intervals int     // small runs whose headline value had an interval
	Covered   int     // intervals that held Truth
	Units     float64 // mean units behind a small run's headline value
	// Equal: pairs of equal skill whose comparison was defined, and how
	// many of them were called different.
	Equal, EqualCalled int
	// DeltaTruth is the large run's difference at Skill + Delta; Detected
	// the small runs that called it (better, or worse where lower is
	// better), Predicted the rate their printed minimum detectable
	// differences imply (the mean power at DeltaTruth), over Compared.
	DeltaTruth         float64
	Compared, Detected int
	Predicted          float64
}

// Coverage is the share of intervals that held the truth.
func (s StudyResult) Coverage() float64 { return float64(s.Covered) / float64(s.Intervals) }

// Study runs opt.Runs small runs of a family, each with its own item seeds
// and its own answers, of three simulated models: two of opt.Skill, one of
// opt.Skill + opt.Delta. It checks each run's interval of the headline
// metric against a large run's value, and its comparisons (the second and
// the third model against the first) against the truth: equal skills, and
// skills opt.Delta apart.
func (l *Lab) Study(f Family, opt StudyOptions) (StudyResult, error) {
	seeds := func(from, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = from + i
		}
		return out
	}
	// The large run: its own item seeds, past those of the small runs, or
	// the whole pool.
	largeSeeds := seeds(opt.Runs*opt.Seeds+1000, opt.Large)
	runSeeds := func(run int) []int { return seeds(run*opt.Seeds, opt.Seeds) }
	if opt.Pool > 0 {
		largeSeeds = seeds(0, opt.Pool)
		runSeeds = func(run int) []int {
			rng := rand.New(rand.NewPCG(uint64(run), 11))
			return rng.Perm(opt.Pool)[:opt.Seeds]
		}
	}
	truth, err := l.headline(f, largeSeeds, opt, 0, opt.Skill)
	if err != nil {
		return StudyResult{}, err
	}
	above, err := l.headline(f, largeSeeds, opt, 1, opt.Skill+opt.Delta)
	if err != nil {
		return StudyResult{}, err
	}
	res := StudyResult{Runs: opt.Runs, Truth: truth.Value, DeltaTruth: above.Value - truth.Value}

	for run := range opt.Runs {
		reqs, err := f.Items(l, runSeeds(run))
		if err != nil {
			return res, err
		}
		answer := func(name string, skill float64, seed int) ([]*record.Record, error) {
			return l.Answer(reqs, Model{Name: name, Skill: skill, Seed: uint64(10000*seed + run)})
		}
		a, err := answer("a", opt.Skill, 1)
		if err != nil {
			return res, err
		}
		b, err := answer("b", opt.Skill, 2)
		if err != nil {
			return res, err
		}
		c, err := answer("c", opt.Skill+opt.Delta, 3)
		if err != nil {
			return res, err
		}
		boot := []string{"--format", "jsonl", "--bootstrap", strconv.Itoa(opt.Bootstrap), "--seed", strconv.Itoa(run), "--compare", "a"}
		for i, other := range [][]*record.Record{b, c} {
			out, stderr, err := l.Aggregate([][]*record.Record{a, other}, boot...)
			if err != nil {
				return res, fmt.Errorf("%v: %s", err, stderr)
			}
			rows, err := Rows(out)
			if err != nil {
				return res, err
			}
			for _, r := range rows {
				switch {
				case i == 0 && r.Model == "a" && f.Headline(r):
					res.Units += float64(*r.NUnits) / float64(opt.Runs)
					if r.CILow != nil {
						res.Intervals++
						if *r.CILow <= truth.Value && truth.Value <= *r.CIHigh {
							res.Covered++
						}
					}
				case r.Metric == "delta_"+truth.Metric && sameDims(r, truth) && !math.IsNaN(r.Nums["p_value"]):
					called := r.Dims["verdict"] != "no detectable difference"
					if i == 0 {
						res.Equal++
						if called {
							res.EqualCalled++
						}
						continue
					}
					res.Compared++
					if r.Dims["verdict"] == "better" {
						res.Detected++
					}
					res.Predicted += predicted(r, res.DeltaTruth)
				}
			}
		}
	}
	if res.Compared > 0 {
		res.Predicted /= float64(res.Compared)
	}
	return res, nil
}

// headline is the family's headline row of a model of the given skill over
// the large run's items, its value the mean of opt.Replicates answers
// (model tells the two skills' answers apart).
func (l *Lab) headline(f Family, seeds []int, opt StudyOptions, model int, skill float64) (report.Row, error) {
	reqs, err := f.Items(l, seeds)
	if err != nil {
		return report.Row{}, err
	}
	var found report.Row
	sum := 0.0
	for rep := range max(opt.Replicates, 1) {
		recs, err := l.Answer(reqs, Model{Name: "a", Skill: skill, Seed: uint64(1000000 + 1000*model + rep)})
		if err != nil {
			return report.Row{}, err
		}
		out, stderr, err := l.Aggregate([][]*record.Record{recs}, "--format", "jsonl", "--ci", "none")
		if err != nil {
			return report.Row{}, fmt.Errorf("%v: %s", err, stderr)
		}
		rows, err := Rows(out)
		if err != nil {
			return report.Row{}, err
		}
		i := slices.IndexFunc(rows, f.Headline)
		if i < 0 {
			return report.Row{}, fmt.Errorf("%s: no headline row in the large run", f.Bench)
		}
		found = rows[i]
		sum += found.Value
	}
	found.Value = sum / float64(max(opt.Replicates, 1))
	return found, nil
}

// sameDims reports whether a comparison row is of the headline's
// dimensions.
func sameDims(r, headline report.Row) bool {
	for k, v := range headline.Dims {
		if k != "source" && k != "simulated" && r.Dims[k] != v {
			return false
		}
	}
	for k, v := range headline.Nums {
		if r.Nums[k] != v {
			return false
		}
	}
	return true
}

// predicted is the chance that a comparison finds a true difference delta,
// given the minimum detectable difference it printed: the standard error
// is MDD / (t₁₋α′/₂ + t₀.₈) at its level α′ and degrees of freedom, the
// power at delta follows. A comparison that could detect nothing (MDD
// none) predicts 0.
func predicted(r report.Row, delta float64) float64 {
	mdd, ok := r.Nums["mdd"]
	if !ok || math.IsNaN(mdd) {
		return 0
	}
	df := int(r.Nums["df"])
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
	level := r.Nums["mdd_level"]
	se := mdd / (t.Quantile(1-level/2) + t.Quantile(aggregate.Power))
	return stats.Power(delta, se, df, level)
}
