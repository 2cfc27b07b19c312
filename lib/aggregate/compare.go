package aggregate

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// The --correction values: Holm's step-down (the default: the chance of any
// false "better" or "worse" in a table stays at α) or Benjamini–Hochberg's
// (the expected share of false ones among those called stays at α).
const (
	CorrectionHolm = "holm"
	CorrectionBH   = "bh"
)

// Power is the power at which a comparison table's minimum detectable
// difference is given.
const Power = 0.8

// Verdicts of a comparison.
const (
	Better       = "better"
	Worse        = "worse"
	NoDifference = "no detectable difference"
)

// pair is one comparison: an arm against the baseline's arm of the same
// benchmark.
type pair struct{ base, other *arm }

// pairs finds the arms --compare X sets against each other: the baseline is
// the model X (or the run X) in each benchmark, and every other arm of the
// benchmark is compared with it; when X has several arms in a benchmark (a
// run of several models, a model of several runs), an arm is compared with
// the baseline arm of its own model, or the choice is ambiguous.
func pairs(arms map[armKey]*arm, x string) ([]pair, error) {
	byBench := map[string][]*arm{}
	for _, a := range arms {
		byBench[a.bench] = append(byBench[a.bench], a)
	}
	var out []pair
	found := false
	for _, b := range slices.Sorted(maps.Keys(byBench)) {
		as := byBench[b]
		slices.SortFunc(as, func(p, q *arm) int { return cmp.Or(strings.Compare(p.model, q.model), strings.Compare(p.run, q.run)) })
		var base, others []*arm
		for _, a := range as {
			if a.model == x || a.run == x {
				base = append(base, a)
			} else {
				others = append(others, a)
			}
		}
		found = found || len(base) > 0
		if len(base) == 0 {
			continue
		}
		if len(others) == 0 && len(base) > 1 {
			return nil, app.Usagef("--compare %s: every answer to %s is by it (%d runs, or models of one run); give one run's id to compare the others with it", x, b, len(base))
		}
		for _, o := range others {
			b := base[0]
			if len(base) > 1 {
				i := slices.IndexFunc(base, func(a *arm) bool { return a.model == o.model })
				if i < 0 {
					return nil, app.Usagef("--compare %s: %s has %d answers by it (models or runs); give a model's run id to say which to compare %s with", x, b.bench, len(base), o.model)
				}
				b = base[i]
			}
			out = append(out, pair{b, o})
		}
	}
	if !found {
		var names []string
		for k := range arms {
			for _, n := range []string{k.model, k.run} {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		slices.Sort(names)
		return nil, app.Usagef("--compare %q: no model or run of that name in the input (%s)", x, strings.Join(names, ", "))
	}
	if len(out) == 0 {
		return nil, app.Usagef("--compare %s: nothing to compare it with: the input holds no other model or run", x)
	}
	return out, nil
}

// comparison is one headline metric of one pair.
type comparison struct {
	pair
	row                  report.Row // the baseline's row of the metric
	direction            int        // 1: higher is better, −1: lower is
	d                    stats.Difference
	paired, onlyB, onlyO int // items both answered, the baseline only, the other only
	adjusted, mdd        float64
	mddLevel             float64 // the level the MDD is at: α over the table's comparisons
}

// compare compares every pair on its benchmark's headline metrics, over the
// items both arms answered, and adjusts the p-values of each benchmark's
// comparisons for their number.
func compare(designs map[string]Design, rows []report.Row, ps []pair, opt Options) map[string][]comparison {
	out := map[string][]comparison{}
	for _, p := range ps {
		d := designs[p.base.bench]
		if d.Estimator == nil || d.Headline == nil {
			continue
		}
		inBase := map[string]armItem{}
		for _, it := range p.base.items {
			inBase[it.id] = it
		}
		var bi, oi []armItem
		seen := map[string]bool{}
		for _, it := range p.other.items {
			if b, ok := inBase[it.id]; ok {
				bi, oi = append(bi, b), append(oi, it)
				seen[it.id] = true
			}
		}
		vars := stats.NewVars()
		ub, uo := alignUnits(units(d, bi, vars), units(d, oi, vars))
		var metrics []stats.Metric
		var cs []comparison
		for _, r := range rows {
			if r.Bench != p.base.bench || r.Model != p.base.model || r.Run != p.base.run || math.IsNaN(r.Value) {
				continue
			}
			dir := d.Headline(r)
			if dir == 0 {
				continue
			}
			rd := stats.NewReader(vars)
			est := d.Estimator(r, rd)
			if est == nil {
				continue
			}
			metrics = append(metrics, rd.Metric(est))
			cs = append(cs, comparison{pair: p, row: r, direction: dir, paired: len(bi), onlyB: len(p.base.items) - len(bi), onlyO: len(p.other.items) - len(bi)})
		}
		diffs := stats.Paired(uo, ub, vars.Len(), metrics, opt.resampling(), stats.Stream(p.base.bench, p.other.model, p.base.model))
		for i := range cs {
			cs[i].d = diffs[i]
		}
		out[p.base.bench] = append(out[p.base.bench], cs...)
	}
	for b, cs := range out {
		p := make([]float64, len(cs))
		for i, c := range cs {
			p[i] = c.d.P
		}
		adj := stats.Holm(p)
		if opt.Correction == CorrectionBH {
			adj = stats.BenjaminiHochberg(p)
		}
		m := 0
		for _, v := range p {
			if !math.IsNaN(v) {
				m++
			}
		}
		alpha := levelOf(opt)
		strictest := alpha / float64(max(m, 1))
		for i := range cs {
			cs[i].adjusted, cs[i].mddLevel = adj[i], strictest
			// At the strictest level the correction may test a comparison
			// (α/m): a true difference that large is found with 80 % power
			// whatever the other comparisons of the table. A permutation
			// test over few units cannot reach that level at all (its
			// smallest p-value is 2/2^n): then nothing is detectable.
			cs[i].mdd = math.NaN()
			if minP(cs[i].d, opt) < strictest {
				cs[i].mdd = stats.MDD(cs[i].d.SE, cs[i].d.DF, strictest, Power)
			}
		}
		out[b] = cs
	}
	return out
}

// minP is the smallest p-value a comparison's permutation test can give:
// the two swaps that keep every unit's difference's sign (none and all)
// among the 2^n it enumerates, or one draw among those it made.
func minP(d stats.Difference, opt Options) float64 {
	if d.Exact {
		return 2 / math.Pow(2, float64(d.Units))
	}
	return 1 / float64(opt.Bootstrap+1)
}

// alignUnits keeps the units both arms have, in the same order.
func alignUnits(a, b []stats.Unit) ([]stats.Unit, []stats.Unit) {
	byKey := map[string]stats.Unit{}
	for _, u := range b {
		byKey[u.Key] = u
	}
	var oa, ob []stats.Unit
	for _, u := range a {
		if v, ok := byKey[u.Key]; ok {
			oa, ob = append(oa, u), append(ob, v)
		}
	}
	return oa, ob
}

// levelOf is the comparisons' level, 1 − the intervals' (0.05), rounded to
// the digits the level was given with.
func levelOf(opt Options) float64 { return math.Round((1-opt.CILevel)*1e9) / 1e9 }

// verdict says whether the other arm is better, worse, or not detectably
// different, at level α after the correction.
func (c comparison) verdict(alpha float64) string {
	switch {
	case math.IsNaN(c.adjusted) || c.adjusted >= alpha || c.d.Diff == 0:
		return NoDifference
	case (c.d.Diff > 0) == (c.direction > 0):
		return Better
	}
	return Worse
}

// label names an arm in the tables: its model, or model and run when the
// runs are what is compared.
func label(a *arm, byRun bool) string {
	if byRun {
		return report.RunLabel(a.model, a.run)
	}
	return a.model
}

// metricLabel names a compared row: the metric and the dimensions that set
// it apart ("ARS (task overall, length all)").
func metricLabel(r report.Row) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Dims)) {
		if slices.Contains([]string{"source", "simulated", "shards", "judge"}, k) {
			continue
		}
		parts = append(parts, k+" "+r.Dims[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Nums)) {
		if _, labelled := r.Dims[k]; !labelled && k != "length_tokens" {
			parts = append(parts, k+" "+strconv.FormatFloat(r.Nums[k], 'f', -1, 64))
		}
	}
	if len(parts) == 0 {
		return r.Metric
	}
	return r.Metric + " (" + strings.Join(parts, ", ") + ")"
}

// comparisonRows are the comparisons as metric rows: metric "delta_M" of the
// other arm's model and run, the baseline's dimensions, the difference as
// the value with its paired interval, and the comparison's numbers as
// dimensions (docs/metrics.md, "Paired comparisons").
func comparisonRows(byBench map[string][]comparison, designs map[string]Design, opt Options) []report.Row {
	var out []report.Row
	alpha := levelOf(opt)
	for _, b := range slices.Sorted(maps.Keys(byBench)) {
		for _, c := range byBench[b] {
			r := report.Row{Bench: c.row.Bench, Model: c.other.model, Metric: "delta_" + c.row.Metric, Value: c.d.Diff, Unit: c.row.Unit,
				N: c.paired, Run: c.other.run, Dims: maps.Clone(c.row.Dims), Nums: maps.Clone(c.row.Nums)}
			if r.Dims == nil {
				r.Dims = map[string]string{}
			}
			if r.Nums == nil {
				r.Nums = map[string]float64{}
			}
			r.Dims["baseline"], r.Dims["baseline_run"] = c.base.model, c.base.run
			r.Dims["verdict"], r.Dims["correction"] = c.verdict(alpha), opt.Correction
			for k, v := range map[string]float64{"baseline_value": c.d.B, "model_value": c.d.A, "p_value": c.d.P, "p_adjusted": c.adjusted,
				"mdd": c.mdd, "mdd_level": c.mddLevel, "df": float64(c.d.DF), "only_baseline": float64(c.onlyB), "only_model": float64(c.onlyO)} {
				r.Nums[k] = v
			}
			d := designs[b]
			r.CILevel, r.CIUnit, r.NUnits = new(opt.CILevel), d.Unit, new(c.d.Units)
			r.CIMethod = report.TooFewUnits
			if c.d.OK {
				r.CILow, r.CIHigh = new(c.d.Low), new(c.d.High)
				r.CIMethod = "paired " + Method(d, c.d.Stratified)
			}
			out = append(out, r)
		}
	}
	return out
}

// comparisonTables are a table per benchmark of its comparisons.
func comparisonTables(byBench map[string][]comparison, reg Registry, opt Options) []report.Table {
	var out []report.Table
	alpha := levelOf(opt)
	f := func(v float64) string { return report.Fmt(v, opt.Decimals) }
	for _, b := range inOrder(reg.Order, byBench) {
		cs := byBench[b]
		if len(cs) == 0 {
			continue
		}
		byRun := false
		for _, c := range cs {
			byRun = byRun || c.base.model == c.other.model
		}
		base := label(cs[0].base, byRun)
		correction := "Holm"
		if opt.Correction == CorrectionBH {
			correction = "Benjamini–Hochberg"
		}
		title := cmp.Or(reg.Titles[b], b)
		t := report.Table{Title: fmt.Sprintf("%s: paired comparison with %s", title, base),
			Columns: []string{"model", "metric", base, "model's", "difference [" + report.Fmt(100*opt.CILevel, -1) + " % CI]", "p", "p (" + correction + ")", "verdict", "MDD", "units", "paired items", "only " + base, "only model"}}
		exact, drawn, unreachable := false, false, false
		for _, c := range cs {
			diff := f(c.d.Diff)
			if c.d.OK {
				diff += " [" + f(c.d.Low) + ", " + f(c.d.High) + "]"
			} else {
				diff += " [too few]"
			}
			mdd := f(c.mdd)
			if math.IsNaN(c.mdd) {
				mdd, unreachable = "none", true
			}
			t.Rows = append(t.Rows, []string{label(c.other, byRun), metricLabel(c.row), f(c.d.B), f(c.d.A), diff,
				report.Fmt(c.d.P, 4), report.Fmt(c.adjusted, 4), c.verdict(alpha), mdd,
				strconv.Itoa(c.d.Units), strconv.Itoa(c.paired), strconv.Itoa(c.onlyB), strconv.Itoa(c.onlyO)})
			exact, drawn = exact || c.d.Exact, drawn || !c.d.Exact && !math.IsNaN(c.d.P)
		}
		unit := reg.Designs[b].Unit
		how := []string{}
		if exact {
			how = append(how, fmt.Sprintf("every one of the 2^n ways when n ≤ %d", stats.ExactUnits))
		}
		if drawn {
			how = append(how, fmt.Sprintf("%d random ones otherwise", opt.Bootstrap))
		}
		t.Notes = []string{
			fmt.Sprintf("Each model against %s on the items both answered, %ss resampled together: the difference (model − %s) with its paired %s %% interval (one bootstrap draw of %ss for both; bias-corrected expanded percentiles), and its p-value from a permutation test (the two models' statistics swapped within %ss: %s).",
				base, unit, base, report.Fmt(100*opt.CILevel, -1), unit, unit, strings.Join(how, ", ")),
			fmt.Sprintf("Verdicts are at α = %s after the %s correction for the %d comparisons of this table: better or worse where the corrected p-value is below α (for IFS, lower is better), else no detectable difference.",
				report.Fmt(alpha, -1), correction, len(cs)),
			fmt.Sprintf("MDD: the minimum detectable difference, the smallest true difference this comparison finds with %s %% power at the strictest level its correction may apply (α/%d), from the standard error of the paired resamples and Student's t on the units less the strata; a smaller true difference is likely to read \"no detectable difference\".", report.Fmt(100*Power, -1), len(cs)),
			"Items only one of the two answered (\"only\" columns) are left out of the pairing, and the values compared are over the paired items, so they may differ from the tables above.",
		}
		if unreachable {
			t.Notes = append(t.Notes, fmt.Sprintf("MDD none: with n %ss the permutation test's smallest p-value is 2/2^n, not below α/%d: no difference of any size could be called; more %ss are needed.", unit, len(cs), unit))
		}
		out = append(out, t)
	}
	return out
}
