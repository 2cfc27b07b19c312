package lifbench

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/fsum"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// sample is one scored item: its total score and its normalised points in
// the order of the task's rubric.
type sample struct {
	model, length, expression, variable string
	task                                *Task
	score                               float64
	points                              []float64
	failed, truncated                   bool
}

// Aggregator reduces judged LIFBench records to ARS, IFP and IFS per model.
// Records that failed before judging (an "error" from inference) score 0
// on every point, as the official ApiInference stores "" for a request
// whose tries all failed and every EvaluateFunc rubric scores "" 0
// (--failed exclude leaves them out); every row counts them in n_failed.
type Aggregator struct {
	opt     aggregate.Options
	samples []sample
}

// NewAggregator is the aggregate-ifs factory.
func NewAggregator(opt aggregate.Options) aggregate.Aggregator { return &Aggregator{opt: opt} }

// Add takes one record.
func (a *Aggregator) Add(rec *record.Record) error {
	s, err := sampleOf(rec)
	if err != nil {
		return err
	}
	a.samples = append(a.samples, s)
	return nil
}

// sampleOf reads a judged (or failed) record.
func sampleOf(rec *record.Record) (sample, error) {
	task, ok := TaskByName(rec.String("task"))
	if !ok {
		return sample{}, app.Invalidf("unknown lifbench task %q", rec.String("task"))
	}
	var g map[string]string
	if rec.Has("group") {
		if err := rec.Decode("group", &g); err != nil {
			return sample{}, app.Invalidf("group: %v", err)
		}
	}
	s := sample{model: aggregate.ModelOf(rec), task: task, length: g["length"], expression: g["expression"], variable: g["variable"], points: make([]float64, len(task.Points)), truncated: aggregate.ServerTruncated(rec)}
	if rec.Errored() {
		s.failed = true
		return s, nil
	}
	if !rec.Has("judgement") {
		return sample{}, app.Invalidf("no \"judgement\" and no \"error\" (run judge first)")
	}
	var j record.Judgement
	if err := rec.Decode("judgement", &j); err != nil {
		return sample{}, app.Invalidf("judgement: %v", err)
	}
	s.score = j.Score
	for i, ps := range task.Points {
		for _, p := range j.Points {
			if p.Name == ps.Name {
				s.points[i] = p.Score
			}
		}
	}
	return s, nil
}

// Result computes the metrics.
func (a *Aggregator) Result() (*aggregate.Result, error) {
	return compute(a.samples, a.opt)
}

// scored are the samples that enter the metrics: all of them, or without
// the failed ones under --failed exclude.
func scored(ss []sample, opt aggregate.Options) []sample {
	if !opt.ExcludeFailed() {
		return ss
	}
	var out []sample
	for _, s := range ss {
		if !s.failed {
			out = append(out, s)
		}
	}
	return out
}

// tally counts the failed and the server-cut samples.
func tally(ss []sample) (failed, truncated int) {
	for _, s := range ss {
		if s.failed {
			failed++
		}
		if s.truncated {
			truncated++
		}
	}
	return
}

// lengthTokens is the token budget of a length label ("4k": 3,072, the
// official budget), for the numeric length_tokens dimension.
func lengthTokens(label string) (float64, bool) {
	l, err := parseLength(label)
	if err != nil {
		return 0, false
	}
	return float64(l.Tokens), true
}

// Every sum over samples is correctly rounded (lib/fsum), so the metrics do
// not depend on the order the records arrive in; the published numbers
// (pandas sums in file order) agree to the published precision.

// ars is Σ_t R_t·ARS_t / Σ_t R_t over the tasks present, and the count.
func ars(samples []sample) (per map[*Task]float64, overall float64, n int) {
	by := map[*Task][]float64{}
	for _, s := range samples {
		by[s.task] = append(by[s.task], s.score)
	}
	per = map[*Task]float64{}
	var num, den float64
	for _, t := range Tasks { // a fixed order: float sums must not follow map order
		xs := by[t]
		if len(xs) == 0 {
			continue
		}
		per[t] = fsum.Mean(xs)
		num += t.Total() * per[t]
		den += t.Total()
		n += len(xs)
	}
	if den == 0 {
		return per, math.NaN(), 0
	}
	return per, num / den, n
}

// ifp is Σ I(s,c)·f_s / Σ I(s,c)·max_s for each capability, where f_s is the
// mean raw score of point s over its task's samples.
func ifp(samples []sample) map[string]float64 {
	by := map[*Task][]sample{}
	for _, s := range samples {
		by[s.task] = append(by[s.task], s)
	}
	num, den := map[string]float64{}, map[string]float64{}
	for _, t := range Tasks {
		ss := by[t]
		if len(ss) == 0 {
			continue
		}
		for i, ps := range t.Points {
			var sum fsum.Sum
			for _, s := range ss {
				sum.Add(s.points[i])
			}
			m := sum.Value() / float64(len(ss))
			for _, c := range ps.Capabilities {
				num[c] += m * ps.Max
				den[c] += ps.Max
			}
		}
	}
	out := map[string]float64{}
	for c := range den {
		out[c] = num[c] / den[c]
	}
	return out
}

// ifs is, for one perspective, the mean over tasks of the coefficient of
// variation of the group ARS values: stdev(group means) / mean of the
// task's samples. Tasks with one group or a zero mean are left out. n is
// the tasks it averages, cut those of them with a sample whose prompt the
// server cut: the row's n_truncated counts tasks, as its n does.
func ifs(samples []sample, key func(sample) string) (v float64, n, cut int) {
	by := map[*Task][]sample{}
	for _, s := range samples {
		by[s.task] = append(by[s.task], s)
	}
	var vals []float64
	for _, t := range Tasks {
		ss := by[t]
		if len(ss) == 0 {
			continue
		}
		groups := map[string][]float64{}
		var all []float64
		for _, s := range ss {
			groups[key(s)] = append(groups[key(s)], s.score)
			all = append(all, s.score)
		}
		var gm []float64
		for _, k := range slices.Sorted(maps.Keys(groups)) {
			gm = append(gm, fsum.Mean(groups[k]))
		}
		m := fsum.Mean(all)
		if sd := fsum.Std(gm); !math.IsNaN(sd) && m > 0 {
			vals = append(vals, sd/m)
			if _, c := tally(ss); c > 0 {
				cut++
			}
		}
	}
	return fsum.Mean(vals), len(vals), cut
}

var perspectives = []struct {
	name string
	key  func(sample) string
}{
	{"expression", func(s sample) string { return s.expression }},
	{"variable", func(s sample) string { return s.variable }},
	{"length", func(s sample) string { return s.length }},
}

func compute(all []sample, opt aggregate.Options) (*aggregate.Result, error) {
	if len(all) == 0 {
		return &aggregate.Result{}, nil
	}
	byModel := map[string][]sample{}
	for _, s := range all {
		byModel[s.model] = append(byModel[s.model], s)
	}
	models := make([]string, 0, len(byModel))
	for m := range byModel {
		models = append(models, m)
	}
	sort.Strings(models)
	b := &lifRows{res: &aggregate.Result{}}
	for _, m := range models {
		all := byModel[m]
		ss := scored(all, opt)
		n := b.byTask(m, all, ss)
		b.byLength(m, all, ss)
		b.stability(m, all, ss)
		b.capabilities(m, all, ss, n)
	}
	if failed, _ := tally(all); failed > 0 {
		note := "failed: records that failed before judging (error) score 0, as the official runner stores an empty output that every rubric scores 0; they are in n and counted in the failed column."
		if opt.ExcludeFailed() {
			note = "failed: records that failed before judging (error) are left out (--failed exclude) and counted in the failed column."
		}
		b.res.Note(titleByTask, note)
	}
	return b.res, nil
}

// lifRows are the metric rows compute writes, model by model; the paper's
// tables are laid out from them (Tables).
type lifRows struct {
	res *aggregate.Result
}

// row writes one metric over n items: the samples ss (its n_failed and,
// unless cut says otherwise, n_truncated); a length label also gives its
// token budget as a number. cut >= 0 is n_truncated where the items are
// not samples (IFS: tasks, or perspectives).
func (b *lifRows) row(model, metric string, v float64, n int, ss []sample, cut int, dims ...string) {
	d := map[string]string{}
	for i := 0; i+1 < len(dims); i += 2 {
		d[dims[i]] = dims[i+1]
	}
	var nums map[string]float64
	if tok, ok := lengthTokens(d["length"]); ok {
		nums = map[string]float64{"length_tokens": tok}
	}
	failed, truncated := tally(ss)
	if cut >= 0 {
		truncated = cut
	}
	b.res.Rows = append(b.res.Rows, report.Row{Bench: Bench, Model: model, Metric: metric, Dims: d, Nums: nums, Value: v, Unit: "ratio", N: n, NFailed: failed, NTruncated: truncated})
}

// byTask writes a model's ARS by task over all lengths and overall
// (Table 3), and returns the number of scored samples.
func (b *lifRows) byTask(m string, all, ss []sample) int {
	per, overall, n := ars(ss)
	counts := map[*Task]int{}
	byTask := map[*Task][]sample{}
	for _, s := range all {
		byTask[s.task] = append(byTask[s.task], s)
	}
	for _, s := range ss {
		counts[s.task]++
	}
	for _, t := range Tasks {
		if v, ok := per[t]; ok {
			b.row(m, "ARS", v, counts[t], byTask[t], -1, "task", t.Name, "length", "all")
		}
	}
	b.row(m, "ARS", overall, n, all, -1, "task", "overall", "length", "all")
	return n
}

// byLength writes a model's ARS by task at each length (Table 7), with the
// IFP and the expression and variable IFS of each length.
func (b *lifRows) byLength(m string, all, ss []sample) {
	byLen, allByLen := map[string][]sample{}, map[string][]sample{}
	var lengths []string
	for _, s := range all {
		if _, ok := allByLen[s.length]; !ok {
			lengths = append(lengths, s.length)
		}
		allByLen[s.length] = append(allByLen[s.length], s)
	}
	for _, s := range ss {
		byLen[s.length] = append(byLen[s.length], s)
	}
	lengthOrder(lengths)
	for _, l := range lengths {
		lp, lo, ln := ars(byLen[l])
		lt := map[*Task][]sample{}
		for _, s := range allByLen[l] {
			lt[s.task] = append(lt[s.task], s)
		}
		lc := map[*Task]int{}
		for _, s := range byLen[l] {
			lc[s.task]++
		}
		for _, t := range Tasks {
			if v, ok := lp[t]; ok {
				b.row(m, "ARS", v, lc[t], lt[t], -1, "task", t.Name, "length", l)
			}
		}
		b.row(m, "ARS", lo, ln, allByLen[l], -1, "task", "overall", "length", l)
		byCap := ifp(byLen[l])
		for _, c := range Capabilities {
			if v, ok := byCap[c]; ok {
				b.row(m, "IFP", v, ln, allByLen[l], -1, "capability", c, "length", l)
			}
		}
		for _, p := range perspectives[:2] {
			v, nt, cut := ifs(byLen[l], p.key)
			b.row(m, "IFS", v, nt, allByLen[l], cut, "perspective", p.name, "task", "overall", "length", l)
		}
	}
}

// stability writes a model's IFS by perspective and their average (Table 4).
func (b *lifRows) stability(m string, all, ss []sample) {
	var vals []float64
	cutPerspectives := 0 // the averaged perspectives with a cut sample in them
	for _, p := range perspectives {
		v, nt, cut := ifs(ss, p.key)
		b.row(m, "IFS", v, nt, all, cut, "perspective", p.name, "task", "overall", "length", "all")
		if !math.IsNaN(v) {
			vals = append(vals, v)
			if cut > 0 {
				cutPerspectives++
			}
		}
	}
	b.row(m, "IFS", fsum.Mean(vals), len(vals), all, cutPerspectives, "perspective", "avg", "task", "overall", "length", "all")
}

// capabilities writes a model's IFP by capability over all lengths (Table
// 8), over its n scored samples.
func (b *lifRows) capabilities(m string, all, ss []sample, n int) {
	caps := ifp(ss)
	for _, c := range Capabilities {
		if v, ok := caps[c]; ok {
			b.row(m, "IFP", v, n, all, -1, "capability", c, "length", "all")
		}
	}
}

// roundHalfUp rounds as the paper's tables do: sums of scores such as
// 0.8844999999999998 are first cleared of float noise (to 10 decimals),
// then ties go up, so 0.8845 prints 0.885 as published.
func roundHalfUp(v float64, dec int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	v = math.Round(v*1e10) / 1e10
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}
