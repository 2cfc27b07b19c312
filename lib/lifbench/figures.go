package lifbench

import (
	"strconv"

	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

// lifbenchTokens reads a LIFBench length label ("4k" is the official 3×1024
// budget, "8k" 6×1024, …) as ParseLengths does.
func lifbenchTokens(s string) (float64, bool) {
	ls, err := ParseLengths(s)
	if err != nil || len(ls) != 1 {
		return 0, false
	}
	return float64(ls[0].Tokens), true
}

// lengthX places a length at its context budget and labels it by that
// budget, as every length on one axis must be: a custom budget is labelled
// "ctx1k" and an official one by the paper's prompt interval ("4k" holds a
// 3,072-token context), so "ctx2k" beside "4k" would read as half of it. An
// official length keeps the paper's name in brackets: "3k (4k)".
func lengthX(r report.Row) (float64, string, bool) {
	v, _, ok := plot.LengthX(lifbenchTokens)(r)
	if !ok {
		return 0, "", false
	}
	label := plot.Tokens(v)
	for _, l := range officialLengths {
		if l.Label == r.Dims["length"] && float64(l.Tokens) == v {
			label += " (" + l.Label + ")"
		}
	}
	return v, label, true
}

func figures(own, ref []report.Row) []plot.Figure {
	counts := plot.Tally(own, ref, func(r report.Row) bool {
		return r.Metric == "ARS" && r.Dims["task"] == "overall" && r.Dims["length"] == "all"
	}, func(rows []report.Row) int {
		for _, r := range report.Match(rows, "ARS", map[string]string{"task": "overall", "length": "all"}) {
			if n, err := strconv.Atoi(r.Dims["failed"]); err == nil {
				return n
			}
		}
		return 0
	})
	unit := plot.Axis{Label: "ARS", Min: 0, Max: 1}
	taskCode := func(r report.Row) string {
		if t, ok := TaskByName(r.Dims["task"]); ok {
			return t.Code
		}
		return r.Dims["task"]
	}
	var codes []string
	for _, t := range Tasks {
		codes = append(codes, t.Code)
	}
	taskRows := report.Match(own, "ARS", map[string]string{"length": "all", "task": "*"})
	taskCats := plot.PresentCats(taskRows, codes, taskCode)
	capRows := report.Match(own, "IFP", map[string]string{"length": "all"})
	capCats := plot.PresentCats(capRows, Capabilities, func(r report.Row) string { return r.Dims["capability"] })
	persp := []string{"expression", "variable", "length", "avg"}
	ifsWhere := map[string]string{"length": "all", "task": "overall"}
	return []plot.Figure{
		{ID: "lifbench-ars-length", Bench: "lifbench", Title: "LIFBench: ARS by input length",
			Measured: "overall ARS (weighted rubric score, 0–1) at each context length, per model", NUnit: "records", Counts: counts,
			Panels: []plot.Panel{{Kind: "lines", X: plot.Axis{Label: "context budget (tokens, log scale; the paper's length in brackets)", Log: true}, Y: unit,
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.LineSeries(report.Match(rows, "ARS", map[string]string{"task": "overall", "length": "*"}), isRef, lengthX, nil)
				})}}},
		{ID: "lifbench-ars-task", Bench: "lifbench", Title: "LIFBench: ARS per task",
			Measured: "ARS of each of the eleven tasks over all lengths (paper Table 3 codes)", NUnit: "records", Counts: counts,
			Panels: []plot.Panel{{Kind: "bars", X: plot.Axis{Label: "task"}, Y: unit, Cats: taskCats,
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.BarSeries(report.Match(rows, "ARS", map[string]string{"length": "all", "task": "*"}), isRef, taskCats, taskCode, nil)
				})}}},
		{ID: "lifbench-ifp", Bench: "lifbench", Title: "LIFBench: instruction-following performance (IFP) per capability",
			Measured: "IFP per capability over all lengths (0–1, higher is better)", NUnit: "records", Counts: counts,
			Panels: []plot.Panel{{Kind: "bars", X: plot.Axis{Label: "capability"}, Y: plot.Axis{Label: "IFP", Min: 0, Max: 1}, Cats: capCats,
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.BarSeries(report.Match(rows, "IFP", map[string]string{"length": "all"}), isRef, capCats, func(r report.Row) string { return r.Dims["capability"] }, nil)
				})}}},
		{ID: "lifbench-ifs", Bench: "lifbench", Title: "LIFBench: instruction-following stability (IFS) per perspective",
			Measured: "IFS per perspective: mean over tasks of stdev(group ARS)/mean; lower is more stable; nan (not drawn) when a perspective has one group", NUnit: "records", Counts: counts,
			Panels: []plot.Panel{{Kind: "bars", X: plot.Axis{Label: "perspective"}, Y: plot.Axis{Label: "IFS (lower is more stable)", Min: 0},
				Cats: plot.PresentCats(report.Match(own, "IFS", ifsWhere), persp, func(r report.Row) string { return r.Dims["perspective"] }),
				Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
					return plot.BarSeries(report.Match(rows, "IFS", ifsWhere), isRef, persp, func(r report.Row) string { return r.Dims["perspective"] }, nil)
				})}}},
	}
}
