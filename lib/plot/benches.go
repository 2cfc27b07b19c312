package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/eifbench"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/longins"
	"github.com/ifkit/ifkit/lib/report"
)

// both runs a series maker over the run's rows, then the reference's.
func both(own, ref []report.Row, f func(rows []report.Row, ref bool) []Series) []Series {
	return append(f(own, false), f(ref, true)...)
}

// lifbenchTokens reads a LIFBench length label ("4k" is the official 3×1024
// budget, "8k" 6×1024, …) as lifbench.ParseLengths does.
func lifbenchTokens(s string) (float64, bool) {
	ls, err := lifbench.ParseLengths(s)
	if err != nil || len(ls) != 1 {
		return 0, false
	}
	return float64(ls[0].Tokens), true
}

// lengthX is the x of a length axis: tokens, labelled with the row's label.
func lengthX(parse func(string) (float64, bool)) xOf {
	return func(r report.Row) (float64, string, bool) {
		v, ok := num(r, "length_tokens", "length", parse)
		if !ok || v <= 0 {
			return 0, "", false
		}
		label := r.Dims["length"]
		if _, numeric := atof(label); label == "" || numeric {
			label = fmtTokens(v)
		}
		return v, label, true
	}
}

func lifbenchFigures(own, ref []report.Row) []Figure {
	counts := tally(own, ref, func(r report.Row) bool {
		return r.Metric == "ARS" && r.Dims["task"] == "overall" && r.Dims["length"] == "all"
	}, func(rows []report.Row) int {
		for _, r := range match(rows, "ARS", map[string]string{"task": "overall", "length": "all"}) {
			if n, err := strconv.Atoi(r.Dims["failed"]); err == nil {
				return n
			}
		}
		return 0
	})
	unit := Axis{Label: "ARS", Min: 0, Max: 1}
	taskCode := func(r report.Row) string {
		if t, ok := lifbench.TaskByName(r.Dims["task"]); ok {
			return t.Code
		}
		return r.Dims["task"]
	}
	var codes []string
	for _, t := range lifbench.Tasks {
		codes = append(codes, t.Code)
	}
	taskRows := match(own, "ARS", map[string]string{"length": "all", "task": "*"})
	taskCats := presentCats(taskRows, codes, taskCode)
	capRows := match(own, "IFP", map[string]string{"length": "all"})
	capCats := presentCats(capRows, lifbench.Capabilities, func(r report.Row) string { return r.Dims["capability"] })
	persp := []string{"expression", "variable", "length", "avg"}
	ifsWhere := map[string]string{"length": "all", "task": "overall"}
	return []Figure{
		{ID: "lifbench-ars-length", Bench: "lifbench", Title: "LIFBench: ARS by input length",
			Measured: "overall ARS (weighted rubric score, 0–1) at each context length, per model", NUnit: "records", Counts: counts,
			Panels: []Panel{{Kind: "lines", X: Axis{Label: "input length (tokens, log scale)", Log: true}, Y: unit,
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return lineSeries(match(rows, "ARS", map[string]string{"task": "overall", "length": "*"}), isRef, lengthX(lifbenchTokens), nil)
				})}}},
		{ID: "lifbench-ars-task", Bench: "lifbench", Title: "LIFBench: ARS per task",
			Measured: "ARS of each of the eleven tasks over all lengths (paper Table 3 codes)", NUnit: "records", Counts: counts,
			Panels: []Panel{{Kind: "bars", X: Axis{Label: "task"}, Y: unit, Cats: taskCats,
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return barSeries(match(rows, "ARS", map[string]string{"length": "all", "task": "*"}), isRef, taskCats, taskCode, nil)
				})}}},
		{ID: "lifbench-ifp", Bench: "lifbench", Title: "LIFBench: instruction-following performance (IFP) per capability",
			Measured: "IFP per capability over all lengths (0–1, higher is better)", NUnit: "records", Counts: counts,
			Panels: []Panel{{Kind: "bars", X: Axis{Label: "capability"}, Y: Axis{Label: "IFP", Min: 0, Max: 1}, Cats: capCats,
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return barSeries(match(rows, "IFP", map[string]string{"length": "all"}), isRef, capCats, func(r report.Row) string { return r.Dims["capability"] }, nil)
				})}}},
		{ID: "lifbench-ifs", Bench: "lifbench", Title: "LIFBench: instruction-following stability (IFS) per perspective",
			Measured: "IFS per perspective: mean over tasks of stdev(group ARS)/mean; lower is more stable; nan (not drawn) when a perspective has one group", NUnit: "records", Counts: counts,
			Panels: []Panel{{Kind: "bars", X: Axis{Label: "perspective"}, Y: Axis{Label: "IFS (lower is more stable)", Min: 0},
				Cats: presentCats(match(own, "IFS", ifsWhere), persp, func(r report.Row) string { return r.Dims["perspective"] }),
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return barSeries(match(rows, "IFS", ifsWhere), isRef, persp, func(r report.Row) string { return r.Dims["perspective"] }, nil)
				})}}},
	}
}

func densityX(r report.Row) (float64, string, bool) {
	v, ok := num(r, "density", "density", atof)
	if !ok {
		return 0, "", false
	}
	return v, strconv.FormatFloat(v, 'f', -1, 64), true
}

// perDensity keeps the rows over all seeds of a density: rows per seed, if
// an aggregator writes them, are not points of these curves.
var perDensity = map[string]string{"seed": "-"}

func ifscaleFigures(own, ref []report.Row) []Figure {
	counts := tally(own, ref, func(r report.Row) bool { return r.Metric == "accuracy" && !hasDim(r, "seed") }, sumMetric("failed", nil))
	// The paper's x axis: 10 to 500 instructions, linear.
	dens := Axis{Label: "instruction density (number of instructions)", Min: 0, Max: 500}
	for _, r := range append(append([]report.Row{}, own...), ref...) {
		if v, _, ok := densityX(r); ok && v > dens.Max {
			dens.Max = v
		}
	}
	accuracy := func(rows []report.Row, isRef bool) []Series {
		ss := lineSeries(match(rows, "accuracy", perDensity), isRef, densityX, nil)
		sd := map[string]map[float64]float64{}
		for _, r := range match(rows, "stdev", perDensity) {
			if x, _, ok := densityX(r); ok && !math.IsNaN(r.Value) {
				name := seriesName(r.Model, isRef)
				if sd[name] == nil {
					sd[name] = map[float64]float64{}
				}
				sd[name][x] = r.Value
			}
		}
		for i := range ss {
			for j, p := range ss[i].Points {
				if s, ok := sd[ss[i].Name][p.X]; ok {
					ss[i].Points[j].Lo, ss[i].Points[j].Hi = ptr(max(0, p.Y-s)), ptr(min(100, p.Y+s))
				}
			}
		}
		return ss
	}
	line := func(metric string) func([]report.Row, bool) []Series {
		return func(rows []report.Row, isRef bool) []Series {
			return lineSeries(match(rows, metric, perDensity), isRef, densityX, nil)
		}
	}
	pct := Axis{Label: "% of errors", Min: 0, Max: 100}
	return []Figure{
		{ID: "ifscale-accuracy", Bench: "ifscale", Title: "IFScale: accuracy vs instruction density",
			Measured: "share of the keywords included exactly (%), mean over seeds; the band is ± one sample standard deviation across seeds", NUnit: "replies", Counts: counts,
			Panels: []Panel{{Kind: "lines", X: dens, Y: Axis{Label: "accuracy (%)", Min: 0, Max: 100}, Series: both(own, ref, accuracy)}}},
		{ID: "ifscale-errors", Bench: "ifscale", Title: "IFScale: omission vs modification errors",
			Measured: "shares of the errors that are omissions (keyword absent) and modifications (a variant of it present), in % of errors", NUnit: "replies", Counts: counts,
			Panels: []Panel{
				{Title: "omission", Kind: "lines", X: dens, Y: pct, Series: both(own, ref, line("omission_share"))},
				{Title: "modification", Kind: "lines", X: dens, Y: pct, Series: both(own, ref, line("modification_share"))},
			}},
		{ID: "ifscale-primacy", Bench: "ifscale", Title: "IFScale: primacy ratio",
			Measured: "error rate of the last third of the instruction list over that of the first third (above 1: early instructions are kept better)", NUnit: "replies", Counts: counts,
			Panels: []Panel{{Kind: "lines", X: dens, Y: Axis{Label: "primacy ratio", Min: 0}, Series: both(own, ref, line("primacy_ratio"))}}},
	}
}

func longinsFigures(own, ref []report.Row) []Figure {
	counts := tally(own, ref, func(r report.Row) bool { return r.Metric == "F1" }, sumMetric("failed", nil))
	modes := presentCats(own, longins.Modes, func(r report.Row) string { return r.Dims["mode"] })
	f1 := Figure{ID: "longins-f1-length", Bench: "longins", Title: "LongIns: F1 by exam length",
		Measured: "F1 × 100 between the wrong-answer ids named and the gold ones, per exam length and mode", NUnit: "exams", Counts: counts}
	for _, mode := range modes {
		f1.Panels = append(f1.Panels, Panel{Title: strings.ToUpper(mode), Kind: "lines", X: Axis{Label: "exam length (tokens, log scale)", Log: true}, Y: Axis{Label: "F1 × 100", Min: 0, Max: 100},
			Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
				return lineSeries(match(rows, "F1", map[string]string{"mode": mode}), isRef, lengthX(atof), nil)
			})})
	}
	heat := Figure{ID: "longins-depth-heat", Bench: "longins", Title: "LongIns: wrong answers found by depth and exam length",
		Measured: "share (%) of the wrong answers at each depth (0 = first tenth of the exam, 9 = last) that the model named; colour from black (0 %) to white (100 %), grey where no wrong answer fell", NUnit: "exams", Counts: counts}
	for _, mode := range modes {
		for _, m := range models(own) {
			rows := match(own, "depth_accuracy", map[string]string{"mode": mode})
			h := &Heat{}
			var cols []float64
			for _, r := range rows {
				if r.Model != m {
					continue
				}
				l, _, okL := lengthX(atof)(r)
				d, okD := num(r, "depth", "depth", atof)
				if !okL || !okD || math.IsNaN(r.Value) {
					continue
				}
				if !slices.Contains(cols, l) {
					cols = append(cols, l)
				}
				h.Cells = append(h.Cells, Cell{Row: strconv.FormatFloat(d, 'f', -1, 64), Col: strconv.FormatFloat(l, 'f', -1, 64), Value: r.Value, N: r.N})
			}
			if len(h.Cells) == 0 {
				continue
			}
			slices.Sort(cols)
			for _, c := range cols {
				h.Cols = append(h.Cols, strconv.FormatFloat(c, 'f', -1, 64))
			}
			for d := range 10 {
				h.Rows = append(h.Rows, strconv.Itoa(d))
			}
			heat.Panels = append(heat.Panels, Panel{Title: fmt.Sprintf("%s, %s", strings.ToUpper(mode), m), Kind: "heat",
				X: Axis{Label: "exam length (tokens)"}, Y: Axis{Label: "depth (tenth of the exam)"}, Heat: h})
		}
	}
	return []Figure{f1, heat}
}

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
	a, okA := atof(lo)
	b, okB := atof(hi)
	if !ok || !okA || !okB {
		return 0, "", false
	}
	return (a + b) / 2, r.Dims["position"], true
}

func longgenbenchFigures(own, ref []report.Row) []Figure {
	counts := tally(own, ref, func(r report.Row) bool { return r.Metric == "CR" }, nil)
	// The figures of check accuracy count checks: a failed judge call fails a
	// check, not a record, so the records' count would show 0 failed.
	checks := tally(own, ref, func(r report.Row) bool { return r.Metric == "accuracy" && r.Dims["type"] == "average" }, nil)
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
	types := append(append([]string{}, longgenbench.CheckTypes...), "average")
	headline := func(rows []report.Row, isRef bool) []Series {
		var rs []report.Row
		for _, r := range rows {
			if slices.Contains(metricCats, r.Metric) {
				rs = append(rs, r)
			}
		}
		return barSeries(rs, isRef, metricCats, func(r report.Row) string { return r.Metric }, split)
	}
	return []Figure{
		{ID: "longgenbench-cr-stic", Bench: "longgenbench", Title: "LongGenBench: completion rate and instruction adherence",
			Measured: "CR (expected entries present), STIC-1 (checks met / checks whose entry exists), STIC-2 (checks met / all checks) and wAvg = CR × STIC-2, in %", NUnit: "records", Counts: counts,
			Panels: []Panel{{Kind: "bars", X: Axis{Label: "metric"}, Y: Axis{Label: "%", Min: 0, Max: 100}, Cats: metricCats, Series: both(own, ref, headline)}}},
		{ID: "longgenbench-position", Bench: "longgenbench", Title: "LongGenBench: adherence by entry position along the output",
			Measured: "share of the judged checks met, by where the entry lies along the output (tenths of the expected entries)", NUnit: "judged checks", Counts: checks,
			Panels: []Panel{{Kind: "lines", X: Axis{Label: "entry position along the output (%)", Min: 0, Max: 100}, Y: Axis{Label: "accuracy", Min: 0, Max: 1},
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return lineSeries(match(rows, "accuracy", map[string]string{"type": "all", "position": "*"}), isRef, positionX, split)
				})}}},
		{ID: "longgenbench-check-type", Bench: "longgenbench", Title: "LongGenBench: accuracy per check type",
			Measured: "share of the judged checks met, per instruction type (single, range, periodic) and their mean", NUnit: "judged checks", Counts: checks,
			Panels: []Panel{{Kind: "bars", X: Axis{Label: "check type"}, Y: Axis{Label: "accuracy", Min: 0, Max: 1}, Cats: types,
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return barSeries(match(rows, "accuracy", map[string]string{"position": "all"}), isRef, types, func(r report.Row) string { return r.Dims["type"] }, split)
				})}}},
	}
}

func eifbenchFigures(own, ref []report.Row) []Figure {
	whole := map[string]string{"sub_instructions": "-", "constraints_per_sub": "-"}
	counts := tally(own, ref, func(r report.Row) bool {
		return r.Metric == "CLA" && r.Dims["subset"] == eifbench.All && !hasDim(r, "sub_instructions") && !hasDim(r, "constraints_per_sub")
	}, sumMetric("failed_checks", map[string]string{"subset": eifbench.All}))
	subsets := presentCats(own, append(append([]string{}, eifbench.Subsets...), eifbench.All), func(r report.Row) string { return r.Dims["subset"] })
	levels := []struct{ metric, label string }{{"CLA", "CLA"}, {"ILA", "ILA"}, {"task_level", "task level"}}
	lv := Figure{ID: "eifbench-levels", Bench: "eifbench", Title: "EifBench: constraint, instruction and task level accuracy per subset",
		Measured: "CLA (share of a task's constraints met), ILA (share of its sub-instructions with every constraint met) and task level (every constraint met), averaged over tasks", NUnit: "tasks", Counts: counts}
	for _, l := range levels {
		lv.Panels = append(lv.Panels, Panel{Title: l.label, Kind: "bars", X: Axis{Label: "subset"}, Y: Axis{Label: l.label, Min: 0, Max: 1}, Cats: subsets,
			Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
				return barSeries(match(rows, l.metric, whole), isRef, subsets, func(r report.Row) string { return r.Dims["subset"] }, nil)
			})})
	}
	by := func(id, title, dim, xlabel, measured string, ls []struct{ metric, label string }) Figure {
		f := Figure{ID: id, Bench: "eifbench", Title: title, Measured: measured, NUnit: "tasks", Counts: counts}
		x := func(r report.Row) (float64, string, bool) {
			v, ok := num(r, dim, dim, atof)
			return v, r.Dims[dim], ok
		}
		for _, l := range ls {
			f.Panels = append(f.Panels, Panel{Title: l.label, Kind: "lines", X: Axis{Label: xlabel}, Y: Axis{Label: l.label, Min: 0, Max: 1},
				Series: both(own, ref, func(rows []report.Row, isRef bool) []Series {
					return lineSeries(match(rows, l.metric, map[string]string{"subset": eifbench.All, dim: "*"}), isRef, x, nil)
				})})
		}
		return f
	}
	return []Figure{lv,
		by("eifbench-sub-instructions", "EifBench: accuracy by number of sub-instructions", "sub_instructions", "sub-instructions in the task",
			"CLA, ILA and task level over the tasks with that many sub-instructions (all subsets)", levels),
		by("eifbench-constraints", "EifBench: accuracy by constraints per sub-instruction", "constraints_per_sub", "constraints in the sub-instruction",
			"CLA (share of the sub-instruction's constraints met) and ILA (every one met) over the sub-instructions with that many constraints (all subsets)", levels[:2]),
	}
}

// hasDim reports whether a row has the dimension, as a label or a number
// (rows written before the one schema carried every dimension as a string).
func hasDim(r report.Row, name string) bool {
	_, s := r.Dims[name]
	_, n := r.Nums[name]
	return s || n
}
