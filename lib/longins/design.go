package longins

import (
	"math"
	"strconv"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// design resamples the exam: one prompt, one reply, its F1 and its wrong
// answers found by depth. Its statistics are per mode and length: the
// exams, their F1 summed, and per depth the wrong answers and those found,
// so F1 stays a mean over exams and depth accuracy a ratio of sums.
var design = aggregate.Design{
	Unit:      "exam",
	Item:      item,
	Estimator: estimator,
	Headline:  aggregate.HigherIsBetter("F1"),
}

func cellName(mode string, length int) string { return "|" + mode + "|" + strconv.Itoa(length) }

func item(rec *record.Record, opt aggregate.Options) (aggregate.Item, bool, error) {
	e, err := examOf(rec)
	if err != nil || e.failed && opt.ExcludeFailed() {
		return aggregate.Item{}, false, err
	}
	c := cellName(e.mode, e.length)
	it := aggregate.Item{Unit: rec.ID()}
	it.Add("n"+c, 1)
	it.Add("f1"+c, e.f1)
	for _, h := range e.hits {
		d := c + "|" + strconv.Itoa(h.Depth)
		it.Add("total"+d, 1)
		if h.Hit {
			it.Add("found"+d, 1)
		}
	}
	return it, true, nil
}

func estimator(row report.Row, r *stats.Reader) stats.Estimator {
	length, err := strconv.Atoi(row.Dims["length"])
	if err != nil {
		return nil
	}
	c := cellName(row.Dims["mode"], length)
	ratio := func(scale float64, num, den int) stats.Estimator {
		return func(x []float64) float64 {
			if stats.At(x, den) == 0 {
				return math.NaN()
			}
			return scale * stats.At(x, num) / stats.At(x, den)
		}
	}
	switch row.Metric {
	case "F1":
		return ratio(100, r.Var("f1"+c), r.Var("n"+c))
	case "depth_accuracy":
		d := c + "|" + strconv.FormatFloat(row.Nums["depth"], 'f', -1, 64)
		return ratio(100, r.Var("found"+d), r.Var("total"+d))
	}
	return nil // empty_gold: a count of exams, not a metric of the model
}
