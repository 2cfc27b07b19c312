package longins

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

func figures(own, ref []report.Row) []plot.Figure {
	counts := plot.Tally(own, ref, func(r report.Row) bool { return r.Metric == "F1" }, plot.SumMetric("failed", nil))
	modes := plot.PresentCats(own, Modes, func(r report.Row) string { return r.Dims["mode"] })
	f1 := plot.Figure{ID: "longins-f1-length", Bench: "longins", Title: "LongIns: F1 by exam length",
		Measured: "F1 × 100 between the wrong-answer ids named and the gold ones, per exam length and mode", NUnit: "exams", Counts: counts}
	for _, mode := range modes {
		f1.Panels = append(f1.Panels, plot.Panel{Title: strings.ToUpper(mode), Kind: "lines", X: plot.Axis{Label: "exam length (tokens, log scale)", Log: true}, Y: plot.Axis{Label: "F1 × 100", Min: 0, Max: 100},
			Series: plot.Both(own, ref, func(rows []report.Row, isRef bool) []plot.Series {
				return plot.LineSeries(report.Match(rows, "F1", map[string]string{"mode": mode}), isRef, plot.LengthX(plot.Atof), nil)
			})})
	}
	heat := plot.Figure{ID: "longins-depth-heat", Bench: "longins", Title: "LongIns: wrong answers found by depth and exam length",
		Measured: "share (%) of the wrong answers at each depth (0 = first tenth of the exam, 9 = last) that the model named; colour from black (0 %) to white (100 %), grey where no wrong answer fell", NUnit: "exams", Counts: counts}
	for _, mode := range modes {
		for _, m := range report.Models(own) {
			rows := report.Match(own, "depth_accuracy", map[string]string{"mode": mode})
			h := &plot.Heat{}
			var cols []float64
			for _, r := range rows {
				if r.Model != m {
					continue
				}
				l, _, okL := plot.LengthX(plot.Atof)(r)
				d, okD := plot.Num(r, "depth", "depth", plot.Atof)
				if !okL || !okD || math.IsNaN(r.Value) {
					continue
				}
				if !slices.Contains(cols, l) {
					cols = append(cols, l)
				}
				h.Cells = append(h.Cells, plot.Cell{Row: strconv.FormatFloat(d, 'f', -1, 64), Col: strconv.FormatFloat(l, 'f', -1, 64), Value: r.Value, Lo: r.CILow, Hi: r.CIHigh, N: r.N, Of: &r})
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
			heat.Panels = append(heat.Panels, plot.Panel{Title: fmt.Sprintf("%s, %s", strings.ToUpper(mode), m), Kind: "heat",
				X: plot.Axis{Label: "exam length (tokens)"}, Y: plot.Axis{Label: "depth (tenth of the exam)"}, Heat: h})
		}
	}
	return []plot.Figure{f1, heat}
}
