package ifscale

import (
	"math"
	"strconv"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// design resamples the sample (one reply at one density and seed, the
// paper's unit: its metrics are means and a standard deviation over seeds).
// A sample's statistics are per density: its counts and sums (the
// accuracy's square for the stdev), NaN-skipping where pandas skips NaN.
var design = aggregate.Design{
	Unit:      "sample",
	Item:      item,
	Estimator: estimator,
	Headline:  aggregate.HigherIsBetter("accuracy"),
}

func item(rec *record.Record, _ aggregate.Options) (aggregate.Item, bool, error) {
	if rec.Errored() { // left out under both policies, as the official runner drops it
		return aggregate.Item{}, false, nil
	}
	n, err := densityOf(rec)
	if err != nil {
		return aggregate.Item{}, false, err
	}
	s, err := sampleOfRecord(rec)
	if err != nil {
		return aggregate.Item{}, false, err
	}
	d := "|" + strconv.Itoa(n)
	it := aggregate.Item{Unit: rec.ID()}
	add := func(name string, v float64) { it.Add(name+d, v) }
	add("judged", 1)
	if !math.IsNaN(s.Accuracy) {
		add("all", s.Accuracy)
		add("alln", 1)
	}
	if s.Rejected != "" {
		add("rejected", 1)
		return it, true, nil
	}
	if !math.IsNaN(s.Accuracy) {
		add("n", 1)
		add("acc", s.Accuracy)
		add("acc2", s.Accuracy*s.Accuracy)
		add("om", s.OmissionPct)
		add("mod", s.ModPct)
	}
	if !math.IsNaN(s.RecencyRatio) {
		add("recn", 1)
		add("rec", s.RecencyRatio)
	}
	if !math.IsNaN(s.Latency) {
		add("latn", 1)
		add("lat", s.Latency)
	}
	return it, true, nil
}

func estimator(row report.Row, r *stats.Reader) stats.Estimator {
	dn, ok := row.Nums["density"]
	if !ok {
		return nil
	}
	d := "|" + strconv.FormatFloat(dn, 'f', -1, 64)
	n, acc, acc2 := r.Var("n"+d), r.Var("acc"+d), r.Var("acc2"+d)
	mean := func(x []float64, sum, count int) float64 { return ratio(stats.At(x, sum), stats.At(x, count)) }
	accuracy := func(x []float64) float64 { return mean(x, acc, n) }
	switch row.Metric {
	case "accuracy":
		return accuracy
	case "stdev":
		return func(x []float64) float64 {
			k := stats.At(x, n)
			if k < 2 {
				return math.NaN()
			}
			s := stats.At(x, acc)
			return math.Sqrt(math.Max(0, stats.At(x, acc2)-s*s/k) / (k - 1))
		}
	case "omission_share":
		om := r.Var("om" + d)
		return func(x []float64) float64 { return mean(x, om, n) }
	case "modification_share":
		mod := r.Var("mod" + d)
		return func(x []float64) float64 { return mean(x, mod, n) }
	case "om_ratio":
		om, mod := r.Var("om"+d), r.Var("mod"+d)
		return func(x []float64) float64 { return ratio(mean(x, om, n), mean(x, mod, n)) }
	case "primacy_ratio":
		rec, recn := r.Var("rec"+d), r.Var("recn"+d)
		return func(x []float64) float64 { return mean(x, rec, recn) }
	case "latency_s":
		lat, latn := r.Var("lat"+d), r.Var("latn"+d)
		return func(x []float64) float64 { return mean(x, lat, latn) }
	case "accuracy_per_latency":
		lat, latn := r.Var("lat"+d), r.Var("latn"+d)
		return func(x []float64) float64 { return ratio(accuracy(x), mean(x, lat, latn)) }
	case "accuracy_all":
		all, alln := r.Var("all"+d), r.Var("alln"+d)
		return func(x []float64) float64 { return mean(x, all, alln) }
	}
	return nil // rejected: a count of replies, not a metric of the model
}
