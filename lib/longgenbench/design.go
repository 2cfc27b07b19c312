package longgenbench

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// design resamples the generation: one long output, whose checks all read
// the same text (a model that drifts drifts for every entry after). A
// check's statistics are per version: it counts as a check, as judged and
// as met, overall, by type and by its entry's tenth; its generation's
// completion rate and word count ride on each check and count once. CR
// stays a mean over generations, the STICs and accuracies ratios of sums.
var design = aggregate.Design{
	Unit:      "generation",
	Item:      checkItem,
	Estimator: estimator,
	Headline:  aggregate.HigherIsBetter("CR", "STIC-1", "STIC-2", "wAvg"),
}

func checkItem(rec *record.Record, opt aggregate.Options) (aggregate.Item, bool, error) {
	if !rec.Has("parent") { // failed before split-subtasks: no checks, not in the tables
		return aggregate.Item{}, false, nil
	}
	var g CheckGold
	var counts Counts
	var group map[string]string
	if err := rec.Decode("gold", &g); err != nil {
		return aggregate.Item{}, false, err
	}
	if err := rec.Decode("split", &counts); err != nil {
		return aggregate.Item{}, false, err
	}
	if err := rec.Decode("group", &group); err != nil {
		return aggregate.Item{}, false, err
	}
	if counts.Number <= 0 {
		return aggregate.Item{}, false, fmt.Errorf("record %q: split.number %d", rec.ID(), counts.Number)
	}
	if len(counts.Error) > 0 && opt.ExcludeFailed() {
		return aggregate.Item{}, false, nil
	}
	v := "|" + group["version"]
	it := aggregate.Item{Unit: rec.String("parent")}
	it.AddOnce("records"+v, 1)
	it.AddOnce("cr"+v, counts.CR())
	if counts.Blocks > wordRuleBlocks && counts.Words > wordRuleWords {
		it.AddOnce("wordsn"+v, 1)
		it.AddOnce("words"+v, float64(counts.Words))
	}
	if rec.Errored() { // the judge call failed: left out of every ratio
		return it, true, nil
	}
	var j record.Judgement
	if err := rec.Decode("judgement", &j); err != nil {
		return aggregate.Item{}, false, err
	}
	pos := v + "|" + strconv.Itoa(min(positionBuckets-1, int((float64(g.Entry)-0.5)*positionBuckets/float64(counts.Number))))
	it.Add("checks"+v, 1)
	it.Add("pchecks"+pos, 1)
	if j.Verdict != judge.VerdictMissing {
		it.Add("judged"+v, 1)
		it.Add("judged"+v+"|"+g.Check, 1)
		it.Add("pjudged"+pos, 1)
	}
	if j.Verdict == judge.VerdictYes {
		it.Add("yes"+v, 1)
		it.Add("yes"+v+"|"+g.Check, 1)
		it.Add("pyes"+pos, 1)
	}
	return it, true, nil
}

func estimator(row report.Row, r *stats.Reader) stats.Estimator {
	v := "|" + row.Dims["version"]
	frac := func(num, den int, scale float64) stats.Estimator {
		return func(x []float64) float64 { return fraction(stats.At(x, num), stats.At(x, den), scale) }
	}
	switch row.Metric {
	case "CR":
		return frac(r.Var("cr"+v), r.Var("records"+v), 100)
	case "STIC-1":
		return frac(r.Var("yes"+v), r.Var("judged"+v), 100)
	case "STIC-2":
		return frac(r.Var("yes"+v), r.Var("checks"+v), 100)
	case "wAvg":
		cr, stic2 := frac(r.Var("cr"+v), r.Var("records"+v), 100), frac(r.Var("yes"+v), r.Var("checks"+v), 1)
		return func(x []float64) float64 { return cr(x) * stic2(x) }
	case "words":
		return frac(r.Var("words"+v), r.Var("wordsn"+v), 1)
	case "present", "accuracy":
		if p, ok := row.Nums["position"]; ok {
			pos := v + "|" + strconv.Itoa(int(math.Round(p*positionBuckets)))
			if row.Metric == "present" {
				return frac(r.Var("pjudged"+pos), r.Var("pchecks"+pos), 1)
			}
			return frac(r.Var("pyes"+pos), r.Var("pjudged"+pos), 1)
		}
		// By type, 0 (not NaN) where none was judged, as the official
		// eval.py; the average is the mean of the three.
		types := CheckTypes
		if t := row.Dims["type"]; t != "average" {
			types = []string{t}
		}
		var ys, js []int
		for _, t := range types {
			ys, js = append(ys, r.Var("yes"+v+"|"+t)), append(js, r.Var("judged"+v+"|"+t))
		}
		return func(x []float64) float64 {
			var sum float64
			for i := range ys {
				if n := stats.At(x, js[i]); n > 0 {
					sum += stats.At(x, ys[i]) / n
				}
			}
			return sum / float64(len(ys))
		}
	}
	return nil // cut_off and judge_failed: counts, not metrics of the model
}

// fraction is scale·num/den, NaN for no denominator (ratio's, over sums).
func fraction(num, den, scale float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return scale * num / den
}
