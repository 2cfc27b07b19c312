package lifbench

import (
	"strconv"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/report"
)

// The tables' titles; the aggregator's notes name them.
const (
	titleByTask   = "LIFBench ARS by task (paper Table 3)"
	titleByLength = "LIFBench ARS by length (paper Table 7)"
	titleIFS      = "LIFBench instruction-following stability, lower is more stable (paper Table 4)"
	titleIFP      = "LIFBench IFP by capability (paper Table 8)"
)

// Tables lays the metric rows out as the paper's Tables 3, 4, 7 and 8, a
// line per model (aggregate-ifs names each run of a model apart).
func Tables(rows []report.Row, opt aggregate.TableOptions) []report.Table {
	look := report.NewLookup(rows)
	cell := func(r report.Row, ok bool) string {
		if !ok {
			return ""
		}
		return report.Cell(r, func(v float64) string { return report.Fmt(roundHalfUp(v, opt.Decimals), opt.Decimals) })
	}
	cols := []string{"Model"}
	for _, t := range Tasks {
		cols = append(cols, t.Code)
	}
	t3 := report.Table{Title: titleByTask, Columns: append(append([]string{}, cols...), "Overall", "n", "failed")}
	t7 := report.Table{Title: titleByLength, Columns: append(append([]string{"Model", "Length"}, cols[1:]...), "Overall", "n", "failed")}
	t4 := report.Table{Title: titleIFS, Columns: []string{"Model", "IFS Expression", "IFS Variable", "IFS Length", "IFS (AVG)", "ARS", "failed"}}
	t8 := report.Table{Title: titleIFP, Columns: append(append([]string{"Model"}, Capabilities...), "failed")}
	for _, m := range report.Models(rows) {
		overall, ok := look.Get(m, "ARS", "task", "overall", "length", "all")
		if !ok {
			continue
		}
		failed := strconv.Itoa(overall.NFailed)
		r3 := []string{m}
		for _, t := range Tasks {
			r3 = append(r3, cell(look.Get(m, "ARS", "task", t.Name, "length", "all")))
		}
		t3.Rows = append(t3.Rows, append(r3, cell(overall, true), strconv.Itoa(overall.N), failed))

		var lengths []string
		for _, r := range look.All(m, "ARS", "task", "overall", "length", "*") {
			lengths = append(lengths, r.Dims["length"])
		}
		lengthOrder(lengths)
		for _, l := range lengths {
			lo, _ := look.Get(m, "ARS", "task", "overall", "length", l)
			r7 := []string{m, l}
			for _, t := range Tasks {
				r7 = append(r7, cell(look.Get(m, "ARS", "task", t.Name, "length", l)))
			}
			t7.Rows = append(t7.Rows, append(r7, cell(lo, true), strconv.Itoa(lo.N), strconv.Itoa(lo.NFailed)))
		}

		r4 := []string{m}
		for _, p := range []string{"expression", "variable", "length", "avg"} {
			r4 = append(r4, cell(look.Get(m, "IFS", "perspective", p, "task", "overall", "length", "all")))
		}
		t4.Rows = append(t4.Rows, append(r4, cell(overall, true), failed))

		r8 := []string{m}
		for _, c := range Capabilities {
			r8 = append(r8, cell(look.Get(m, "IFP", "capability", c, "length", "all")))
		}
		t8.Rows = append(t8.Rows, append(r8, failed))
	}
	t3.Notes = []string{"Overall = Σ task weight × ARS / Σ weight (weights: the tasks' total points, 99 for all eleven)."}
	t4.Notes = []string{"IFS = mean over tasks of stdev(group ARS, ddof=1) / task mean; nan when a perspective has a single group (e.g. one length); IFS (AVG) averages the defined ones."}
	return []report.Table{t3, t4, t7, t8}
}
