package longgenbench

import (
	"math"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

// positionX is where along the output an adherence bucket lies, in percent:
// Row.Nums "position" (a fraction in [0,1] or a percent) labelled by its
// "position_range", else the middle of the bucket label "10-20%".
func positionX(r report.Row) (float64, string, bool) {
	if v, ok := r.Nums["position"]; ok && !math.IsNaN(v) {
		if v <= 1 {
			v = math.Round(v*1e11) / 1e9 // in percent, without the float noise of ×100
		}
		label := r.Dims["position_range"]
		if label == "" {
			label = r.Dims["position"]
		}
		return v, label, true
	}
	lo, hi, ok := strings.Cut(strings.TrimSuffix(r.Dims["position"], "%"), "-")
	a, okA := plot.Atof(lo)
	b, okB := plot.Atof(hi)
	if !ok || !okA || !okB {
		return 0, "", false
	}
	return (a + b) / 2, r.Dims["position"], true
}

func figures(own, ref []report.Row) []plot.Figure {
	counts := plot.Tally(own, ref, func(r report.Row) bool { return r.Metric == "CR" }, nil)
	// The figures of check accuracy count checks: a failed judge call fails a
	// check, not a record, so the records' count would show 0 failed.
	checks := plot.Tally(own, ref, func(r report.Row) bool { return r.Metric == "accuracy" && r.Dims["type"] == "average" }, nil)
	// A model run on both versions (short, long) gets a series per version.
	versions := map[string]bool{}
	for _, r := range append(append([]report.Row{}, own...), ref...) {
		versions[r.Dims["version"]] = true
	}
	var split func(report.Row) string
	if len(versions) > 1 {
		split = func(r report.Row) string { return r.Dims["version"] }
	}
	metricCats := []string{"CR", "STIC-1", "STIC-2", "wAvg"}
	types := append(append([]string{}, CheckTypes...), "average")
	headline := func(rows []report.Row, isRef bool) []plot.Series {
		var rs []report.Row
		for _, r := range rows {
			if slices.Contains(metricCats, r.Metric) {
				rs = append(rs, r)
			}
		}
		return plot.BarSeries(rs, isRef, metricCats, func(r report.Row) string { return r.Metric }, split)
	}
	return []plot.Figure{
		{ID: "longgenbench-cr-stic", Bench: "longgenbench", Title: "LongGenBench: completion rate and instruction adherence",
			Measured: "CR (expected entries present), STIC-1 (checks met / checks whose entry exists), STIC-2 (checks met / all checks) and wAvg = CR × STIC-2, in %", NUnit: "records", Counts: counts,
			Panels: []plot.Panel{{Kind: "bars", X: plot.Axis{Label: "metric"}, Y: plot.Axis{Label: "%", Min: 0, Max: 100}, Cats: metricCats, Series: plot.Both(own, ref, headline)}}},
		{ID: "longgenbench-position", Bench: "longgenbench", Title: "LongGenBench: adherence by entry position along the output",
			Measured: "share of the judged checks met, by where the entry lies along the output (tenths of the expected entries)", NUnit: "judged checks", Counts: checks,
			Panels: []plot.Panel{{Kind: "lines", X: plot.Axis{Label: "entry position along the output (%)", Min: 0, Max: 100}, Y: plot.Axis{Label: "accuracy", Min: 0, Max: 1},
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.LineSeries(report.Match(rows, "accuracy", map[string]string{"type": "all", "position": "*"}), isRef, positionX, split)
				})}}},
		{ID: "longgenbench-check-type", Bench: "longgenbench", Title: "LongGenBench: accuracy per check type",
			Measured: "share of the judged checks met, per instruction type (single, range, periodic) and their mean", NUnit: "judged checks", Counts: checks,
			Panels: []plot.Panel{{Kind: "bars", X: plot.Axis{Label: "check type"}, Y: plot.Axis{Label: "accuracy", Min: 0, Max: 1}, Cats: types,
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.BarSeries(report.Match(rows, "accuracy", map[string]string{"position": "all"}), isRef, types, func(r report.Row) string { return r.Dims["type"] }, split)
				})}}},
	}
}
