package ifscale

import (
	"math"
	"strconv"

	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

func densityX(r report.Row) (float64, string, bool) {
	v, ok := plot.Num(r, "density", "density", plot.Atof)
	if !ok {
		return 0, "", false
	}
	return v, strconv.FormatFloat(v, 'f', -1, 64), true
}

// perDensity keeps the rows over all seeds of a density: rows per seed, if
// an aggregator writes them, are not points of these curves.
var perDensity = map[string]string{"seed": "-"}

func figures(own, ref []report.Row) []plot.Figure {
	counts := plot.Tally(own, ref, func(r report.Row) bool { return r.Metric == "accuracy" && !plot.HasDim(r, "seed") }, plot.SumMetric("failed", nil))
	// The paper's x axis: 10 to 500 instructions, linear.
	dens := plot.Axis{Label: "instruction density (number of instructions)", Min: 0, Max: 500}
	for _, r := range append(append([]report.Row{}, own...), ref...) {
		if v, _, ok := densityX(r); ok && v > dens.Max {
			dens.Max = v
		}
	}
	// A series without intervals (a published model's, or rows made with
	// --ci none) gets the paper's band: ± one sample standard deviation
	// across seeds.
	accuracy := func(rows []report.Row, isRef bool) []plot.Series {
		ss := plot.LineSeries(report.Match(rows, "accuracy", perDensity), isRef, densityX, nil)
		sd := map[string]map[float64]float64{}
		for _, r := range report.Match(rows, "stdev", perDensity) {
			if x, _, ok := densityX(r); ok && !math.IsNaN(r.Value) {
				name := plot.SeriesName(r.Model, isRef)
				if sd[name] == nil {
					sd[name] = map[float64]float64{}
				}
				sd[name][x] = r.Value
			}
		}
		for i := range ss {
			for j, p := range ss[i].Points {
				if s, ok := sd[ss[i].Name][p.X]; ok && p.Lo == nil {
					ss[i].Points[j].Lo, ss[i].Points[j].Hi = new(max(0, p.Y-s)), new(min(100, p.Y+s))
				}
			}
		}
		return ss
	}
	line := func(metric string) func([]report.Row, bool) []plot.Series {
		return func(rows []report.Row, isRef bool) []plot.Series {
			return plot.LineSeries(report.Match(rows, metric, perDensity), isRef, densityX, nil)
		}
	}
	pct := plot.Axis{Label: "% of errors", Min: 0, Max: 100}
	return []plot.Figure{
		{ID: "ifscale-accuracy", Bench: "ifscale", Title: "IFScale: accuracy vs instruction density",
			Measured: "share of the keywords included exactly (%), mean over seeds; a series without confidence intervals (a published model's) has the paper's band, ± one sample standard deviation across seeds", NUnit: "replies", Counts: counts,
			Panels: []plot.Panel{{Kind: "lines", X: dens, Y: plot.Axis{Label: "accuracy (%)", Min: 0, Max: 100}, Series: plot.Both(own, ref, accuracy)}}},
		{ID: "ifscale-errors", Bench: "ifscale", Title: "IFScale: omission vs modification errors",
			Measured: "shares of the errors that are omissions (keyword absent) and modifications (a variant of it present), in % of errors", NUnit: "replies", Counts: counts,
			Panels: []plot.Panel{
				{Title: "omission", Kind: "lines", X: dens, Y: pct, Series: plot.Both(own, ref, line("omission_share"))},
				{Title: "modification", Kind: "lines", X: dens, Y: pct, Series: plot.Both(own, ref, line("modification_share"))},
			}},
		{ID: "ifscale-primacy", Bench: "ifscale", Title: "IFScale: primacy ratio",
			Measured: "error rate of the last third of the instruction list over that of the first third (above 1: early instructions are kept better)", NUnit: "replies", Counts: counts,
			Panels: []plot.Panel{{Kind: "lines", X: dens, Y: plot.Axis{Label: "primacy ratio", Min: 0}, Series: plot.Both(own, ref, line("primacy_ratio"))}}},
	}
}
