package ifscale

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/pandas"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// Sample is one reply's metrics, as in the official per_sample.csv:
// accuracy and the shares in percent, latency in seconds.
type Sample struct {
	Model        string
	N            int
	Accuracy     float64
	OmissionPct  float64 // share of the errors that are omissions
	ModPct       float64 // share of the errors that are modifications
	RecencyRatio float64 // error rate of the last bucket / the first; NaN if the first has none
	Latency      float64 // seconds; NaN when unknown
	Rejected     string  // why the official runner would have retried it; "" if accepted
	Cut          bool    // the server cut its prompt (response.server_truncated)
	// Seed and ID order the samples of a group (Reduce): the seed as
	// written ("" when unknown), the record id ("" for official rows).
	Seed, ID string
}

// SampleOf computes a reply's metrics from its keyword classes in list
// order, with analysis.py's formulas (errors are everything not exact; the
// shares divide by the error count guarded to 1; buckets are max(1, N//3)).
func SampleOf(classes []Class) Sample {
	n := len(classes)
	var exact, om, mod int
	for _, c := range classes {
		switch c {
		case Exact:
			exact++
		case Omission:
			om++
		default:
			mod++
		}
	}
	errs := float64(max(n-exact, 1))
	bucket := max(1, n/3)
	errRate := func(cs []Class) float64 {
		e := 0
		for _, c := range cs {
			if c != Exact {
				e++
			}
		}
		return float64(e) / float64(len(cs))
	}
	s := Sample{N: n, Accuracy: float64(exact) / float64(n) * 100, OmissionPct: float64(om) / errs * 100, ModPct: float64(mod) / errs * 100}
	if n == 0 {
		s.Accuracy, s.RecencyRatio = math.NaN(), math.NaN()
		return s
	}
	// compute_metrics in the official analysis.py leaves the ratio NaN
	// unless there are at least three constraints.
	s.RecencyRatio = math.NaN()
	if n >= 3 {
		early, late := errRate(classes[:bucket]), errRate(classes[n-bucket:])
		s.RecencyRatio = ratio(late, early)
	}
	return s
}

// Stats are the metrics of one model at one density.
type Stats struct {
	Model             string
	N                 int
	Samples           int     // accepted replies
	Accuracy, Stdev   float64 // over accepted replies, as published
	OmissionShare     float64
	ModificationShare float64
	OMRatio           float64
	PrimacyRatio      float64
	Latency           float64
	AccPerLatency     float64
	AccuracyAll       float64 // over every judged reply, rejected ones included
	Judged, Rejected  int
	Failed            int // records that carry an error from an earlier stage
	// Judged replies to a prompt the server cut, and those of them accepted:
	// each row counts them among the replies its n counts.
	Truncated, TruncatedAccepted int
}

type groupKey struct {
	model string
	n     int
}

// Reduce groups samples by model and density (sorted, as pandas groupby
// does) and computes the published metrics. failed counts errored records
// per group.
//
// The sums follow pandas' float rounding (lib/pandas), which depends on the
// order of the terms; pandas takes a group's rows in file order, and the
// official per_sample.csv lists each group's seeds in ascending order. So
// each group is reduced in seed order (then record id), whatever order the
// samples came in: the same records give the same bits, and the official
// files give the published ones.
func Reduce(samples []Sample, failed map[groupKey]int) []Stats {
	groups := map[groupKey][]Sample{}
	for _, s := range samples {
		k := groupKey{s.Model, s.N}
		groups[k] = append(groups[k], s)
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b Sample) int {
			return cmp.Or(compareSeeds(a.Seed, b.Seed), strings.Compare(a.ID, b.ID))
		})
	}
	for k := range failed {
		if _, ok := groups[k]; !ok {
			groups[k] = nil
		}
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		if c := strings.Compare(a.model, b.model); c != 0 {
			return c
		}
		return a.n - b.n
	})
	out := make([]Stats, 0, len(keys))
	for _, k := range keys {
		var acc, om, mod, rec, lat, accAll []float64
		st := Stats{Model: k.model, N: k.n, Failed: failed[k]}
		for _, s := range groups[k] {
			st.Judged++
			accAll = append(accAll, s.Accuracy)
			if s.Cut {
				st.Truncated++
			}
			if s.Rejected != "" {
				st.Rejected++
				continue
			}
			if s.Cut {
				st.TruncatedAccepted++
			}
			acc = append(acc, s.Accuracy)
			om = append(om, s.OmissionPct)
			mod = append(mod, s.ModPct)
			rec = append(rec, s.RecencyRatio)
			lat = append(lat, s.Latency)
		}
		st.Samples = len(acc)
		st.Accuracy, st.Stdev = pandas.Mean(acc), pandas.Std(acc)
		st.OmissionShare, st.ModificationShare = pandas.Mean(om), pandas.Mean(mod)
		st.OMRatio = ratio(st.OmissionShare, st.ModificationShare)
		st.PrimacyRatio = pandas.Mean(rec)
		st.Latency = pandas.Mean(lat)
		st.AccPerLatency = ratio(st.Accuracy, st.Latency)
		st.AccuracyAll = pandas.Mean(accAll)
		out = append(out, st)
	}
	return out
}

// compareSeeds orders seeds as numbers, before any that is not one.
func compareSeeds(a, b string) int {
	x, errX := strconv.ParseFloat(a, 64)
	y, errY := strconv.ParseFloat(b, 64)
	switch {
	case errX == nil && errY == nil && x != y:
		return cmp.Compare(x, y)
	case (errX == nil) != (errY == nil):
		if errX == nil {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// Result turns the statistics into tidy rows.
func Result(stats []Stats) *aggregate.Result {
	res := &aggregate.Result{}
	for _, s := range stats {
		nums := map[string]float64{"density": float64(s.N)}
		add := func(metric, unit string, v float64, n, cut int) {
			res.Rows = append(res.Rows, report.Row{Bench: Bench, Model: s.Model, Metric: metric, Nums: nums, Value: v, Unit: unit, N: n, NFailed: s.Failed, NTruncated: cut})
		}
		add("accuracy", "percent", s.Accuracy, s.Samples, s.TruncatedAccepted)
		add("stdev", "percent", s.Stdev, s.Samples, s.TruncatedAccepted)
		add("omission_share", "percent", s.OmissionShare, s.Samples, s.TruncatedAccepted)
		add("modification_share", "percent", s.ModificationShare, s.Samples, s.TruncatedAccepted)
		add("om_ratio", "ratio", s.OMRatio, s.Samples, s.TruncatedAccepted)
		add("primacy_ratio", "ratio", s.PrimacyRatio, s.Samples, s.TruncatedAccepted)
		add("latency_s", "seconds", s.Latency, s.Samples, s.TruncatedAccepted)
		add("accuracy_per_latency", "percent_per_second", s.AccPerLatency, s.Samples, s.TruncatedAccepted)
		add("accuracy_all", "percent", s.AccuracyAll, s.Judged, s.Truncated)
		add("rejected", "count", float64(s.Rejected), s.Judged, s.Truncated)
	}
	return res
}

// detailMetrics are the detail table's metric columns, in order.
var detailMetrics = []string{"accuracy", "stdev", "omission_share", "modification_share", "om_ratio", "primacy_ratio", "latency_s", "accuracy_per_latency", "accuracy_all"}

// densityKey is one model at one density: a line of the tables.
type densityKey struct {
	model   string
	density float64
}

// Tables lays the rows out as the paper's leaderboard (accuracy and stdev
// at a few densities) and a table of every metric per model and density.
func Tables(rows []report.Row, opt aggregate.TableOptions) []report.Table {
	cells := map[densityKey]map[string]report.Row{}
	var keys []densityKey
	for _, r := range rows {
		d, ok := r.Nums["density"]
		if !ok {
			continue
		}
		k := densityKey{r.Model, d}
		if cells[k] == nil {
			cells[k] = map[string]report.Row{}
			keys = append(keys, k)
		}
		cells[k][r.Metric] = r
	}
	slices.SortFunc(keys, func(a, b densityKey) int {
		return cmp.Or(strings.Compare(a.model, b.model), cmp.Compare(a.density, b.density))
	})
	f := func(v float64) string { return report.Fmt(v, opt.Decimals) }
	detail := report.Table{
		Title:   "IFScale: metrics per model and instruction density",
		Columns: []string{"model", "N", "samples", "accuracy %", "stdev", "omission %", "modification %", "O:M", "primacy", "latency s", "acc/latency", "accuracy (all) %", "rejected", "failed"},
		Notes: []string{
			"Accuracy, stdev (sample, ddof=1, across seeds), error shares and ratios are over accepted replies, as published (the official runner retried rejected ones). " +
				"\"accuracy (all)\" also counts replies the runner would have rejected (fewer than 20 words, or a bare comma-separated keyword list); the o4-mini coherence gate is not applied. " +
				"O:M is omission/modification share (nan when there are no modifications); primacy is the mean over seeds of the last-third/first-third error-rate ratio (nan-skipping). " +
				"Failed samples (an error from an earlier stage) are left out of every metric and counted under \"failed\", with --failed official as with exclude: the official runner skips a sample whose attempts all failed and writes no row for it (runner.py process_model_task).",
		},
	}
	for _, k := range keys {
		c := cells[k]
		acc := c["accuracy"]
		line := []string{k.model, report.Fmt(k.density, -1), strconv.Itoa(acc.N)}
		for _, m := range detailMetrics {
			r, ok := c[m]
			if !ok {
				line = append(line, "")
				continue
			}
			line = append(line, report.Cell(r, f))
		}
		line = append(line, report.Fmt(c["rejected"].Value, 0), strconv.Itoa(acc.NFailed))
		detail.Rows = append(detail.Rows, line)
	}
	return []report.Table{leaderboard(keys, cells), detail}
}

// leaderboard is the paper's layout: accuracy % (stdev) per density, at the
// densities headlineDensities picks.
func leaderboard(keys []densityKey, cells map[densityKey]map[string]report.Row) report.Table {
	var present []float64
	var models []string
	for _, k := range keys {
		present = append(present, k.density)
		if !slices.Contains(models, k.model) {
			models = append(models, k.model)
		}
	}
	densities, left := headlineDensities(present)
	t := report.Table{Title: "IFScale: accuracy % (stdev) by number of instructions", Columns: []string{"model"},
		Notes: []string{"failed: samples of these densities that failed before scoring; they are left out, as the official runner drops them."}}
	if left != "" {
		t.Notes = append(t.Notes, left)
	}
	cols := densities
	for _, n := range cols {
		t.Columns = append(t.Columns, "N="+report.Fmt(n, -1))
	}
	t.Columns = append(t.Columns, "failed")
	f := func(v float64) string { return report.Fmt(v, 1) }
	for _, m := range models {
		row := []string{m}
		failed := 0
		for _, n := range cols {
			c, ok := cells[densityKey{m, n}]
			acc := c["accuracy"]
			failed += acc.NFailed
			if !ok || acc.N == 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, fmt.Sprintf("%s (%s)%s", f(acc.Value), f(c["stdev"].Value), report.Interval(acc, f)))
		}
		t.Rows = append(t.Rows, append(row, strconv.Itoa(failed)))
	}
	return t
}

// aggregator collects judged IFScale records.
type aggregator struct {
	opt     aggregate.Options
	samples []Sample
	failed  map[groupKey]int
}

// NewAggregator is the aggregate-ifs factory for IFScale.
func NewAggregator(opt aggregate.Options) aggregate.Aggregator {
	return &aggregator{opt: opt, failed: map[groupKey]int{}}
}

func (a *aggregator) Add(rec *record.Record) error {
	n, err := densityOf(rec)
	if err != nil {
		return err
	}
	model := aggregate.ModelOf(rec)
	// Under either --failed policy a failed sample is left out: the official
	// runner drops a sample whose attempts all failed (runner.py
	// process_model_task returns before write_result), so no score exists.
	if rec.Errored() {
		a.failed[groupKey{model, n}]++
		return nil
	}
	s, err := sampleOfRecord(rec)
	if err != nil {
		return err
	}
	s.Model, s.N = model, n
	a.samples = append(a.samples, s)
	return nil
}

// densityOf is a record's instruction density (group.density).
func densityOf(rec *record.Record) (int, error) {
	var group struct {
		Density string `json:"density"`
	}
	if err := rec.Decode("group", &group); err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(group.Density)
	if err != nil {
		return 0, fmt.Errorf("record %q: group.density %q is not a number", rec.ID(), group.Density)
	}
	return n, nil
}

// sampleOfRecord is a judged record's metrics (SampleOf its keyword
// classes), with its seed, id and latency; its model and density are the
// caller's.
func sampleOfRecord(rec *record.Record) (Sample, error) {
	var group struct {
		Seed json.RawMessage `json:"seed"` // a string or a number: only its order matters
	}
	if err := rec.Decode("group", &group); err != nil {
		return Sample{}, err
	}
	var j struct {
		Detail *Detail `json:"detail"`
	}
	if err := rec.Decode("judgement", &j); err != nil {
		return Sample{}, err
	}
	if j.Detail == nil {
		return Sample{}, fmt.Errorf("record %q has no judgement.detail: run judge before aggregate-ifs", rec.ID())
	}
	classes := make([]Class, len(j.Detail.Keywords))
	for i, k := range j.Detail.Keywords {
		switch k.Class {
		case "exact":
			classes[i] = Exact
		case "modification":
			classes[i] = Modification
		case "omission":
			classes[i] = Omission
		default:
			return Sample{}, fmt.Errorf("record %q: keyword %q has class %q", rec.ID(), k.Keyword, k.Class)
		}
	}
	s := SampleOf(classes)
	s.Rejected, s.ID, s.Cut = j.Detail.Rejected, rec.ID(), aggregate.ServerTruncated(rec)
	var err error
	if s.Seed, err = record.Unquote(group.Seed); err != nil {
		s.Seed = string(group.Seed)
	}
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		return Sample{}, err
	}
	s.Latency = math.NaN()
	if resp.LatencyMS > 0 {
		s.Latency = resp.LatencyMS / 1000
	}
	return s, nil
}

func (a *aggregator) Result() (*aggregate.Result, error) {
	return Result(Reduce(a.samples, a.failed)), nil
}
