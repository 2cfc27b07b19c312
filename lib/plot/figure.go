package plot

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/report"
)

// Figure is one numbered figure of the report: one or more panels sharing a
// legend, a caption and a table.
type Figure struct {
	ID       string  `json:"id"` // the report item it draws, stable across runs
	Bench    string  `json:"bench"`
	Title    string  `json:"title"`
	Measured string  `json:"measured"` // what the numbers are, for the caption
	NUnit    string  `json:"n_unit"`   // what n counts: records, checks, tasks
	Panels   []Panel `json:"panels"`
	Counts   []Count `json:"counts"`
	// Intervals says what the bands and error bars are (the rows'
	// confidence intervals), set by Build when the rows have them.
	Intervals string `json:"intervals,omitempty"`
}

// Panel is one plot: lines over a numeric x, bars over categories, or a heat map.
type Panel struct {
	Title  string   `json:"title,omitempty"`
	Kind   string   `json:"kind"` // lines, bars, heat
	X      Axis     `json:"x"`
	Y      Axis     `json:"y"`
	Cats   []string `json:"cats,omitempty"` // x categories of bars
	Series []Series `json:"series,omitempty"`
	Heat   *Heat    `json:"heat,omitempty"`
}

// Axis fixes a scale; Min = Max = 0 leaves it to the data.
type Axis struct {
	Label string  `json:"label"`
	Log   bool    `json:"log,omitempty"`
	Min   float64 `json:"min,omitempty"`
	Max   float64 `json:"max,omitempty"`
}

// Series is one model's numbers (or a published model's, when Reference).
type Series struct {
	Name      string  `json:"name"`
	Reference bool    `json:"reference,omitempty"`
	Points    []Point `json:"points"`
}

// Point is one plotted value: at X (lines, with its tick label) or in
// category Cat (bars); Lo..Hi is its confidence interval, drawn as a band
// around lines and an error bar on bars, when the row has one.
type Point struct {
	X     float64  `json:"x,omitempty"`
	Label string   `json:"label,omitempty"`
	Cat   string   `json:"cat,omitempty"`
	Y     float64  `json:"y"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
	N     int      `json:"n"`
	// Row is the metric row the point shows (nil for a published model's):
	// the page links the point to the items behind it.
	Row *report.Row `json:"-"`
	sel int         // the point's selection on the page, from 1; 0 for none
}

// Heat is a grid of cells; a missing cell had no data.
type Heat struct {
	Rows  []string `json:"rows"` // bottom to top
	Cols  []string `json:"cols"` // left to right
	Cells []Cell   `json:"cells"`
}

// Cell is one heat-map value.
type Cell struct {
	Row   string   `json:"row"`
	Col   string   `json:"col"`
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"` // the confidence interval, in the table under the map
	Hi    *float64 `json:"hi,omitempty"`
	N     int      `json:"n"`
	// Of is the metric row the cell shows, as Point.Row.
	Of  *report.Row `json:"-"`
	sel int
}

// Count is what a caption says about one model's data.
type Count struct {
	Model     string `json:"model"`
	Reference bool   `json:"reference,omitempty"`
	N         int    `json:"n"`
	Failed    int    `json:"failed"`
	Truncated int    `json:"truncated"`
	// CutCheck is how well the model's records were checked for cuts
	// (report.Row.CutCheck; the weakest of its rows').
	CutCheck  string `json:"cut_check,omitempty"`
	Simulated bool   `json:"simulated,omitempty"`
}

// Section is one benchmark's part of the report: its heading and the
// figures it draws from its metric rows (lib/bench's Figures).
type Section struct {
	Bench   string // the rows' "bench"
	Title   string // the heading: the paper's name
	Figures func(own, reference []report.Row) []Figure
}

// Build makes the figures of every section whose benchmark has rows, in the
// sections' order; reference rows (published models) join the figures of
// the benchmarks present. A figure with nothing to draw (every value nan)
// is kept, so the report says so instead of leaving it out.
func Build(rows, reference []report.Row, sections []Section) []Figure {
	var out []Figure
	for _, s := range sections {
		own := report.ApartByRun(ofBench(rows, s.Bench))
		if len(own) == 0 {
			continue
		}
		figs := s.Figures(own, ofBench(reference, s.Bench))
		if iv := intervals(own); iv != "" {
			for i := range figs {
				figs[i].Intervals = iv
			}
		}
		out = append(out, figs...)
	}
	return out
}

// intervals says what the rows' confidence intervals are, "" when they
// have none.
func intervals(rows []report.Row) string {
	var units []string
	level := 0.0
	for _, r := range rows {
		if r.CILow == nil || r.CILevel == nil {
			continue
		}
		level = *r.CILevel
		if !slices.Contains(units, r.CIUnit) {
			units = append(units, r.CIUnit)
		}
	}
	if level == 0 {
		return ""
	}
	return fmt.Sprintf("Bands and error bars are %s %% confidence intervals, resampling the %ss behind each value (docs/metrics.md); the table gives them as [low, high]", strconv.FormatFloat(100*level, 'f', -1, 64), strings.Join(units, ", "))
}

func hasData(f Figure) bool {
	for _, p := range f.Panels {
		if p.Heat != nil && len(p.Heat.Cells) > 0 {
			return true
		}
		for _, s := range p.Series {
			if len(s.Points) > 0 {
				return true
			}
		}
	}
	return false
}

func ofBench(rows []report.Row, bench string) []report.Row {
	var out []report.Row
	for _, r := range rows {
		if r.Bench == bench {
			out = append(out, r)
		}
	}
	return out
}

// SeriesName marks a published model's series.
func SeriesName(model string, ref bool) string {
	if ref {
		return model + " (published)"
	}
	return model
}

// Num is a numeric dimension: Row.Nums when the aggregator wrote it, else
// parsed from the string dimension the rows carry (with parse).
func Num(r report.Row, key, dim string, parse func(string) (float64, bool)) (float64, bool) {
	if v, ok := r.Nums[key]; ok && !math.IsNaN(v) {
		return v, true
	}
	s, ok := r.Dims[dim]
	if !ok {
		return 0, false
	}
	return parse(s)
}

func Atof(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// XOf reads a point's x and its tick label.
type XOf func(report.Row) (x float64, label string, ok bool)

// collect makes one series per model (split further by split, when given)
// of the points point reads from rows, in order; NaN values and rows point
// refuses are not plotted.
func collect(rows []report.Row, ref bool, split func(report.Row) string, point func(report.Row) (Point, bool), order func(a, b Point) int) []Series {
	var out []Series
	idx := map[string]int{}
	for _, r := range rows {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			continue
		}
		p, ok := point(r)
		if !ok {
			continue
		}
		p.Y, p.N = r.Value, r.N
		if r.CILow != nil && r.CIHigh != nil {
			p.Lo, p.Hi = r.CILow, r.CIHigh
		}
		if !ref {
			p.Row = &r
		}
		name := SeriesName(r.Model, ref)
		if split != nil {
			if s := split(r); s != "" {
				name = SeriesName(r.Model+" "+s, ref)
			}
		}
		i, seen := idx[name]
		if !seen {
			i = len(out)
			idx[name] = i
			out = append(out, Series{Name: name, Reference: ref})
		}
		out[i].Points = append(out[i].Points, p)
	}
	for i := range out {
		slices.SortStableFunc(out[i].Points, order)
	}
	slices.SortStableFunc(out, func(a, b Series) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LineSeries is a series per model over the numeric x. A point without a
// label is labelled by its x: the data table under the figure has a row per
// label, so points without one would fall into one row.
func LineSeries(rows []report.Row, ref bool, x XOf, split func(report.Row) string) []Series {
	return collect(rows, ref, split, func(r report.Row) (Point, bool) {
		xv, label, ok := x(r)
		if label == "" {
			label = strconv.FormatFloat(xv, 'f', -1, 64)
		}
		return Point{X: xv, Label: label}, ok
	}, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
}

// BarSeries is a series per model with a bar per category (cat reads a
// row's category; rows outside cats are dropped).
func BarSeries(rows []report.Row, ref bool, cats []string, cat func(report.Row) string, split func(report.Row) string) []Series {
	return collect(rows, ref, split, func(r report.Row) (Point, bool) {
		c := cat(r)
		return Point{Cat: c}, slices.Contains(cats, c)
	}, func(a, b Point) int { return slices.Index(cats, a.Cat) - slices.Index(cats, b.Cat) })
}

// PresentCats keeps the categories of order that occur in rows (via cat),
// in order.
func PresentCats(rows []report.Row, order []string, cat func(report.Row) string) []string {
	var out []string
	for _, c := range order {
		for _, r := range rows {
			if cat(r) == c {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Tally is one model's n, failed and truncated counts for a caption, from
// the summary rows chosen by the benchmark. Row.NFailed and NTruncated are
// the schema's; failedFallback reads the failed count the benchmark's own
// rows carried before the schema had them.
func Tally(own, ref []report.Row, summary func(report.Row) bool, failedFallback func(rows []report.Row) int) []Count {
	var out []Count
	for _, set := range []struct {
		rows []report.Row
		ref  bool
	}{{own, false}, {ref, true}} {
		for _, m := range report.Models(set.rows) {
			c := Count{Model: m, Reference: set.ref}
			var mine []report.Row
			for _, r := range set.rows {
				if r.Model != m {
					continue
				}
				mine = append(mine, r)
				c.Simulated = c.Simulated || r.Dims["simulated"] == "true"
				if summary(r) {
					c.N += r.N
					c.Failed += r.NFailed
					c.Truncated += r.NTruncated
					c.CutCheck = weakerCheck(c.CutCheck, r.CutCheck)
				}
			}
			if c.Failed == 0 && failedFallback != nil {
				c.Failed = failedFallback(mine)
			}
			out = append(out, c)
		}
	}
	return out
}

// weakerCheck is the weaker of two rows' cut checks: "cuts not checked",
// then the widest "cuts under N % not detectable", then "exact"; "" (no
// reply checked) gives way to any.
func weakerCheck(a, b string) string {
	rank := func(c string) (int, int) {
		var n int
		switch {
		case c == "cuts not checked":
			return 0, 0
		case strings.HasPrefix(c, "cuts under "):
			fmt.Sscanf(c, "cuts under %d", &n)
			return 1, -n
		case c == "":
			return 3, 0
		}
		return 2, 0
	}
	ra, na := rank(a)
	rb, nb := rank(b)
	if rb < ra || rb == ra && nb < na {
		return b
	}
	return a
}

// SumMetric adds the values of a count metric (e.g. "failed") over rows
// matching want.
func SumMetric(metric string, want map[string]string) func([]report.Row) int {
	return func(rows []report.Row) int {
		var s float64
		for _, r := range report.Match(rows, metric, want) {
			if !math.IsNaN(r.Value) {
				s += r.Value
			}
		}
		return int(math.Round(s))
	}
}

// Tokens labels a token count as the papers do: 4096 as 4k, 1000 as 1000.
func Tokens(v float64) string {
	if v >= 1024 && math.Mod(v, 1024) == 0 {
		return fmt.Sprintf("%gk", v/1024)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Both runs a series maker over the run's rows, then the reference's.
func Both(own, ref []report.Row, f func(rows []report.Row, ref bool) []Series) []Series {
	return append(f(own, false), f(ref, true)...)
}

// LengthX is the x of a length axis: tokens, labelled with the row's label.
func LengthX(parse func(string) (float64, bool)) XOf {
	return func(r report.Row) (float64, string, bool) {
		v, ok := Num(r, "length_tokens", "length", parse)
		if !ok || v <= 0 {
			return 0, "", false
		}
		label := r.Dims["length"]
		if _, numeric := Atof(label); label == "" || numeric {
			label = Tokens(v)
		}
		return v, label, true
	}
}

// HasDim reports whether a row has the dimension, as a label or a number
// (rows written before the one schema carried every dimension as a string).
func HasDim(r report.Row, name string) bool {
	_, s := r.Dims[name]
	_, n := r.Nums[name]
	return s || n
}
