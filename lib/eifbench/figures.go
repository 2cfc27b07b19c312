package eifbench

import (
	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

func figures(own, ref []report.Row) []plot.Figure {
	whole := map[string]string{"sub_instructions": "-", "constraints_per_sub": "-"}
	counts := plot.Tally(own, ref, func(r report.Row) bool {
		return r.Metric == "CLA" && r.Dims["subset"] == All && !plot.HasDim(r, "sub_instructions") && !plot.HasDim(r, "constraints_per_sub")
	}, plot.SumMetric("failed_checks", map[string]string{"subset": All}))
	subsets := plot.PresentCats(own, append(append([]string{}, Subsets...), All), func(r report.Row) string { return r.Dims["subset"] })
	levels := []struct{ metric, label string }{{"CLA", "CLA"}, {"ILA", "ILA"}, {"task_level", "task level"}}
	lv := plot.Figure{ID: "eifbench-levels", Bench: "eifbench", Title: "EifBench: constraint, instruction and task level accuracy per subset",
		Measured: "CLA (share of a task's constraints met), ILA (share of its sub-instructions with every constraint met) and task level (every constraint met), averaged over tasks", NUnit: "tasks", Counts: counts}
	for _, l := range levels {
		lv.Panels = append(lv.Panels, plot.Panel{Title: l.label, Kind: "bars", X: plot.Axis{Label: "subset"}, Y: plot.Axis{Label: l.label, Min: 0, Max: 1}, Cats: subsets,
			Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
				return plot.BarSeries(report.Match(rows, l.metric, whole), isRef, subsets, func(r report.Row) string { return r.Dims["subset"] }, nil)
			})})
	}
	by := func(id, title, dim, xlabel, measured string, ls []struct{ metric, label string }) plot.Figure {
		f := plot.Figure{ID: id, Bench: "eifbench", Title: title, Measured: measured, NUnit: "tasks", Counts: counts}
		x := func(r report.Row) (float64, string, bool) {
			v, ok := plot.Num(r, dim, dim, plot.Atof)
			return v, r.Dims[dim], ok
		}
		for _, l := range ls {
			f.Panels = append(f.Panels, plot.Panel{Title: l.label, Kind: "lines", X: plot.Axis{Label: xlabel}, Y: plot.Axis{Label: l.label, Min: 0, Max: 1},
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.LineSeries(report.Match(rows, l.metric, map[string]string{"subset": All, dim: "*"}), isRef, x, nil)
				})})
		}
		return f
	}
	return []plot.Figure{lv,
		by("eifbench-sub-instructions", "EifBench: accuracy by number of sub-instructions", "sub_instructions", "sub-instructions in the task",
			"CLA, ILA and task level over the tasks with that many sub-instructions (all subsets)", levels),
		by("eifbench-constraints", "EifBench: accuracy by constraints per sub-instruction", "constraints_per_sub", "constraints in the sub-instruction",
			"CLA (share of the sub-instruction's constraints met) and ILA (every one met) over the sub-instructions with that many constraints (all subsets)", levels[:2]),
	}
}
