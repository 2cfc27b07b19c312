package aggregate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// The --ci values: an interval on every metric (the default), or none.
const (
	CIBootstrap = "bootstrap"
	CINone      = "none"
)

// MinUnits is the fewest units behind a value that get an interval: with
// fewer, a resample repeats a handful of units and the interval would mean
// nothing, so the row says "too few units" instead.
const MinUnits = 5

// Interval defaults: a 95 % interval from 2,000 resamples.
const (
	DefaultCILevel   = 0.95
	DefaultBootstrap = 2000
)

// checkCI refuses bad interval flags and fills their defaults.
func checkCI(opt *Options) error {
	if err := choose("ci", &opt.CI, CIBootstrap, CINone); err != nil {
		return err
	}
	if opt.CILevel == 0 {
		opt.CILevel = DefaultCILevel
	}
	if !(opt.CILevel > 0 && opt.CILevel < 1) {
		return app.Usagef("--ci-level %v: want a level between 0 and 1, such as 0.95", opt.CILevel)
	}
	if opt.Bootstrap == 0 {
		opt.Bootstrap = DefaultBootstrap
	}
	if opt.Bootstrap < 100 {
		return app.Usagef("--bootstrap %d: want at least 100 resamples", opt.Bootstrap)
	}
	return nil
}

func (o Options) resampling() stats.Options {
	return stats.Options{Level: o.CILevel, B: o.Bootstrap, Seed: o.Seed, MinUnits: MinUnits}
}

// armKey names an arm: its run, benchmark and model, and while the records
// are read the judge of its records (judges.nameArms names a model's
// judges apart in its model and clears it).
type armKey struct{ run, bench, model, judge string }

// intervals sets the confidence interval of every row whose benchmark's
// design has an estimator for it, from the units of the row's model (and
// run): what the paper's metric gives on resamples of them. A design that
// does not give back the row's own value over all its units would put the
// interval around another number: that row gets none, and warn says so.
func intervals(designs map[string]Design, rows []report.Row, arms map[armKey]*arm, opt Options, warn func(msg string, args ...any)) {
	byArm := map[armKey][]int{}
	var order []armKey
	for i, r := range rows {
		k := armKey{run: r.Run, bench: r.Bench, model: r.Model}
		if _, ok := byArm[k]; !ok {
			order = append(order, k)
		}
		byArm[k] = append(byArm[k], i)
	}
	for _, k := range order {
		d, a := designs[k.bench], arms[k]
		if d.Estimator == nil || a == nil {
			continue
		}
		vars := stats.NewVars()
		us := units(d, a.items, vars)
		var metrics []stats.Metric
		var which []int
		for _, i := range byArm[k] {
			if math.IsNaN(rows[i].Value) {
				continue
			}
			rd := stats.NewReader(vars)
			if est := d.Estimator(rows[i], rd); est != nil {
				metrics = append(metrics, rd.Metric(est))
				which = append(which, i)
			}
		}
		// The stream names the benchmark and model, not the run: the run id
		// hashes the input's bytes, and intervals must not change with the
		// records' order.
		ivs := stats.Intervals(us, vars.Len(), metrics, opt.resampling(), stats.Stream(k.bench, k.model))
		off := map[string]int{}
		for j, i := range which {
			if !agrees(ivs[j].Value, rows[i].Value) {
				off[rows[i].Metric]++
				continue
			}
			setInterval(&rows[i], ivs[j], d, opt.CILevel)
		}
		for _, m := range slices.Sorted(maps.Keys(off)) {
			warn("the benchmark's statistics do not give back its metric: no interval", "bench", k.bench, "model", k.model, "metric", m, "rows", off[m])
		}
	}
}

// agrees reports whether the design's value is the row's, up to the
// rounding of sums taken in another order.
func agrees(design, row float64) bool {
	if math.IsNaN(design) || math.IsNaN(row) {
		return math.IsNaN(design) == math.IsNaN(row)
	}
	return math.Abs(design-row) <= 1e-9*math.Max(1, math.Max(math.Abs(design), math.Abs(row)))
}

// setInterval writes an interval into a row's columns.
func setInterval(r *report.Row, iv stats.Interval, d Design, level float64) {
	r.CILevel, r.CIUnit, r.NUnits = new(level), d.Unit, new(iv.Units)
	if !iv.OK {
		r.CIMethod = report.TooFewUnits
		return
	}
	r.CILow, r.CIHigh = new(iv.Low), new(iv.High)
	r.CIMethod = Method(d, iv.Stratified)
}

// Method names the resampling behind an interval (the rows' ci_method):
// "bootstrap" over the units, or "bootstrap by S" within the strata S.
func Method(d Design, stratified int) string {
	if stratified >= 0 && stratified < len(d.Strata) {
		return "bootstrap by " + d.Strata[stratified]
	}
	return "bootstrap"
}

// ciNote says, under a table whose rows have intervals, what they are: the
// level, the units resampled and how, and what "[too few]" means; with the
// resamples and the seed when they were computed now (not read back).
func ciNote(rows []report.Row, opt TableOptions) string {
	var units, methods []string
	level := 0.0
	few := false
	for _, r := range rows {
		if r.CILevel == nil {
			continue
		}
		level = *r.CILevel
		if r.CIUnit != "" && !slices.Contains(units, r.CIUnit) {
			units = append(units, r.CIUnit)
		}
		switch {
		case r.CIMethod == report.TooFewUnits:
			few = true
		case r.CIMethod != "" && !slices.Contains(methods, r.CIMethod):
			methods = append(methods, r.CIMethod)
		}
	}
	if level == 0 {
		return ""
	}
	slices.Sort(methods)
	unit := strings.Join(units, ", ")
	var parts []string
	if len(methods) > 0 {
		s := fmt.Sprintf("[low, high]: %s %% confidence interval, resampling the %ss behind each value (%s", report.Fmt(100*level, -1), unit, strings.Join(methods, "; "))
		if opt.Resamples > 0 {
			s += fmt.Sprintf(", %d resamples, --seed %d", opt.Resamples, opt.Seed)
		}
		parts = append(parts, s+"; bias-corrected expanded percentiles, docs/metrics.md).")
	}
	if few {
		parts = append(parts, fmt.Sprintf("[too few]: fewer than %d %ss behind the value, so no confidence interval (docs/metrics.md).", MinUnits, unit))
	}
	s := strings.Join(parts, " ")
	return s
}
