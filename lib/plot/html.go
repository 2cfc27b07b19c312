package plot

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/report"
)

func escape(s string) string { return html.EscapeString(s) }

// The page is one file: CSS inline, SVG inline, no font or image fetched,
// no script but the item explorer's (inline, lib/explore); @media print
// keeps each figure with its caption and table.
const css = `
body{font-family:Arial,Helvetica,sans-serif;max-width:62rem;margin:1.5rem auto;padding:0 1rem;color:#111;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:1px solid #ccc;margin-top:2.5rem}
figure{margin:1.5rem 0 2.5rem;padding:0}
svg.figure{display:block;max-width:100%;height:auto}
figcaption{font-size:.9rem;margin:.4rem 0 .6rem}
.warn{background:#fff4d6;border:1px solid #e0b84c;padding:.5rem .8rem}
table{border-collapse:collapse;font-size:.8rem;margin:.3rem 0}
th,td{border:1px solid #ccc;padding:.15rem .45rem;text-align:right}
th:first-child,td:first-child,td.s{text-align:left}
td small{color:#555}
caption{text-align:left;font-size:.8rem;font-weight:bold}
nav ul{columns:2;font-size:.9rem}
.hit{fill:transparent;pointer-events:all;cursor:pointer}
.hit:hover,.hit:focus{fill:rgba(0,0,0,.14);outline:none}
td.sel{cursor:pointer}td.sel:hover{background:#eef5fb}
.data{color:#444}
table.prov td{text-align:left;vertical-align:top}
@media print{body{max-width:none;margin:0}nav{display:none}figure{break-inside:avoid;page-break-inside:avoid}h2{break-after:avoid}}
`

// Page is what the report says about where its rows came from, and what
// the page holds beside the figures.
type Page struct {
	Reference string // the --reference file, if any
	Decimals  int
	// Provenance is the table of where each model's data came from
	// (aggregate.Provenance, as report.md prints it), shown under the title.
	Provenance report.Table
	// Explorer is HTML put after the figures (the item explorer); its
	// writer escapes what it holds.
	Explorer string
	// Targets links every plotted value to the items behind it: click
	// targets over the figures' points, bars and cells, data-sel on the
	// table cells, and the rows behind them as JSON (script#x-sels) for the
	// explorer to read.
	Targets bool
	// About says, in plain text, what else is known of where one model's
	// data of a benchmark came from (judge, tokenizer), for the captions.
	About func(bench, model string) string
}

// Selection is the metric row behind one plotted value, as the page's
// script#x-sels lists them (numbered from 1 in data-sel): the explorer
// finds the items behind it by its bench, model, run and dimensions.
type Selection struct {
	Figure int               `json:"figure"`
	Title  string            `json:"title"` // the series and the x (or category) it is at
	Bench  string            `json:"bench"`
	Model  string            `json:"model"`
	Run    string            `json:"run"`
	Metric string            `json:"metric"`
	Value  float64           `json:"value"`
	N      int               `json:"n"`
	Dims   map[string]string `json:"dims"` // string and numeric dimensions, as text
}

// selectionOf is the selection of a row drawn in figure fig.
func selectionOf(fig int, title string, r *report.Row) Selection {
	s := Selection{Figure: fig, Title: title, Bench: r.Bench, Model: strings.TrimSuffix(r.Model, report.RunLabel("", r.Run)), Run: r.Run, Metric: r.Metric, Value: r.Value, N: r.N, Dims: map[string]string{}}
	for k, v := range r.Dims {
		if k != "source" && k != "simulated" && k != "shards" {
			s.Dims[k] = v
		}
	}
	for k, v := range r.Nums {
		s.Dims[k] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s
}

// joined names a plotted value by its non-empty parts: "sim-strong, ARS, 4k".
func joined(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

// number gives every plotted value that shows a metric row its selection.
func number(figs []Figure) []Selection {
	var out []Selection
	for i := range figs {
		for _, p := range figs[i].Panels {
			for _, s := range p.Series {
				for k := range s.Points {
					pt := &s.Points[k]
					if pt.Row == nil {
						continue
					}
					x := pt.Cat
					if x == "" {
						x = pt.Label
					}
					out = append(out, selectionOf(i+1, joined(s.Name, p.Title, x), pt.Row))
					pt.sel = len(out)
				}
			}
			if p.Heat == nil {
				continue
			}
			for k := range p.Heat.Cells {
				c := &p.Heat.Cells[k]
				if c.Of == nil {
					continue
				}
				out = append(out, selectionOf(i+1, joined(p.Title, p.Y.Label+" "+c.Row, p.X.Label+" "+c.Col), c.Of))
				c.sel = len(out)
			}
		}
	}
	return out
}

// WriteHTML writes the report page of the sections' figures built from rows
// and reference rows.
func WriteHTML(w io.Writer, rows, reference []report.Row, sections []Section, pg Page) error {
	figs := Build(rows, reference, sections)
	titles := map[string]string{}
	for _, s := range sections {
		titles[s.Bench] = s.Title
	}
	var sels []Selection
	if pg.Targets {
		sels = number(figs)
	}
	var sb strings.Builder
	const title = "ifkit report"
	fmt.Fprintf(&sb, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n", escape(title), css, escape(title))
	writeProvenance(&sb, pg.Provenance)
	var benches []string
	for _, f := range figs {
		if !slices.Contains(benches, f.Bench) {
			benches = append(benches, f.Bench)
		}
	}
	if len(figs) == 0 {
		sb.WriteString("<p>No metric rows of a known benchmark: nothing to draw.</p>\n")
	}
	if sim := simulatedModels(rows); len(sim) > 0 {
		fmt.Fprintf(&sb, "<p class=\"warn\"><strong>Simulated replies.</strong> The replies of %s came from llm-sim, a test double: their numbers describe the simulator, not a model.</p>\n", escape(strings.Join(sim, ", ")))
	}
	if pg.Reference != "" {
		fmt.Fprintf(&sb, "<p>Published models (dashed lines, pale bars, “(published)”) come from %s, metric rows imported from the benchmarks' official result files.</p>\n", escape(pg.Reference))
	}
	sb.WriteString("<nav><ul>\n")
	for i, f := range figs {
		fmt.Fprintf(&sb, "<li><a href=\"#%s\">Figure %d. %s</a></li>\n", f.ID, i+1, escape(f.Title))
	}
	if pg.Explorer != "" {
		sb.WriteString("<li><a href=\"#explorer\">The items behind the figures</a></li>\n")
	}
	sb.WriteString("</ul></nav>\n")
	about := provenance(rows, pg.About)
	for i, f := range figs {
		if i == 0 || figs[i-1].Bench != f.Bench {
			if i > 0 {
				sb.WriteString("</section>\n")
			}
			fmt.Fprintf(&sb, "<section id=\"%s\">\n<h2>%s</h2>\n", f.Bench, titles[f.Bench])
		}
		fmt.Fprintf(&sb, "<figure id=\"%s\" data-item=\"%s\">\n", f.ID, f.ID)
		if hasData(f) {
			svg, err := SVG(f, pg.Targets)
			if err != nil {
				return err
			}
			sb.Write(svg)
		}
		fmt.Fprintf(&sb, "<figcaption><strong>Figure %d. %s.</strong> %s%s</figcaption>\n", i+1, escape(f.Title), caption(f), about(f))
		if hasData(f) {
			writeTable(&sb, f, pg.Decimals)
		} else {
			sb.WriteString("<p class=\"warn\">Nothing to draw: no value behind this figure is a number (nan), e.g. too few items or no errors to compare.</p>\n")
		}
		sb.WriteString("</figure>\n")
	}
	if len(figs) > 0 {
		sb.WriteString("</section>\n")
	}
	if pg.Targets {
		b, err := json.Marshal(sels) // escapes <, > and &: the text cannot end the script
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "<script type=\"application/json\" id=\"x-sels\">%s</script>\n", b)
	}
	sb.WriteString(pg.Explorer)
	sb.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func simulatedModels(rows []report.Row) []string {
	var out []string
	for _, r := range rows {
		if r.Dims["simulated"] == "true" && !slices.Contains(out, r.Model) {
			out = append(out, r.Model)
		}
	}
	slices.Sort(out)
	return out
}

// caption says what was measured, how much data is behind each model and
// how much of it failed or was cut by the server, and where replies came from.
func caption(f Figure) string {
	var sb strings.Builder
	sb.WriteString(escape(upperFirst(f.Measured)) + ". ")
	var own, refs, sim []string
	for _, c := range f.Counts {
		s := fmt.Sprintf("%s: n = %d %s, %d failed, %s", c.Model, c.N, f.NUnit, c.Failed, report.CutPhrase(c.Truncated, c.CutCheck))
		if c.Reference {
			refs = append(refs, c.Model)
			continue
		}
		own = append(own, s)
		if c.Simulated {
			sim = append(sim, c.Model)
		}
	}
	if len(own) > 0 {
		sb.WriteString(escape(strings.Join(own, "; ")) + ". ")
	}
	if len(refs) > 0 {
		sb.WriteString("Published reference: " + escape(strings.Join(refs, ", ")) + ". ")
	}
	if f.Intervals != "" && hasInterval(f) {
		sb.WriteString(escape(f.Intervals) + ". ")
	}
	switch {
	case len(sim) == 0:
		sb.WriteString("Replies from the models named (not llm-sim).")
	case len(sim) == len(own):
		sb.WriteString("<strong>Replies from llm-sim</strong> (a test double, not a model).")
	default:
		sb.WriteString("<strong>Replies from llm-sim</strong> for " + escape(strings.Join(sim, ", ")) + " (a test double, not a model).")
	}
	return sb.String()
}

// hasInterval reports whether anything drawn in the figure has an interval.
func hasInterval(f Figure) bool {
	for _, p := range f.Panels {
		for _, s := range p.Series {
			for _, pt := range s.Points {
				if pt.Lo != nil {
					return true
				}
			}
		}
		if p.Heat != nil {
			for _, c := range p.Heat.Cells {
				if c.Lo != nil {
					return true
				}
			}
		}
	}
	return false
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// writeTable lists every plotted number under its figure; a heat map's
// table has its layout (a row per depth, a column per length).
func writeTable(sb *strings.Builder, f Figure, dec int) {
	fv := func(v float64) string { return report.Fmt(v, dec) }
	multi := len(f.Panels) > 1
	row := func(tag string, cs ...string) {
		sb.WriteString("<tr>")
		for i, c := range cs {
			cls := ""
			if tag == "td" && i < 2 {
				cls = ` class="s"`
			}
			fmt.Fprintf(sb, "<%s%s>%s</%s>", tag, cls, escape(c), tag)
		}
		sb.WriteString("</tr>\n")
	}
	if f.Panels[0].Kind == "heat" {
		for _, p := range f.Panels {
			fmt.Fprintf(sb, "<table>\n<caption>%s: %s (n)</caption>\n<thead>", escape(p.Title), escape(f.Panels[0].Y.Label))
			head := []string{p.X.Label + " →"}
			head = append(head, p.Heat.Cols...)
			row("th", head...)
			sb.WriteString("</thead>\n<tbody>\n")
			for _, r := range p.Heat.Rows {
				fmt.Fprintf(sb, "<tr><td class=\"s\">%s</td>", escape(r))
				for _, c := range p.Heat.Cols {
					v, sel := "–", 0
					for _, cell := range p.Heat.Cells {
						if cell.Row == r && cell.Col == c {
							v, sel = fmt.Sprintf("%s (%d)", fv(cell.Value), cell.N), cell.sel
							if cell.Lo != nil && cell.Hi != nil {
								v = fmt.Sprintf("%s [%s, %s] (%d)", fv(cell.Value), fv(*cell.Lo), fv(*cell.Hi), cell.N)
							}
						}
					}
					fmt.Fprintf(sb, "<td%s>%s</td>", selAttr(sel), escape(v))
				}
				sb.WriteString("</tr>\n")
			}
			sb.WriteString("</tbody>\n</table>\n")
		}
		return
	}
	// Lines and bars: a row per x (or category), a column per series.
	for _, p := range f.Panels {
		sb.WriteString("<table>\n")
		if multi {
			fmt.Fprintf(sb, "<caption>%s</caption>\n", escape(p.Title))
		}
		var xs []string
		cell := map[[2]string]Point{}
		head := []string{p.X.Label}
		for _, s := range p.Series {
			head = append(head, s.Name)
			for _, pt := range s.Points {
				x := pt.Cat
				if x == "" {
					x = pt.Label
				}
				if !slices.Contains(xs, x) {
					xs = append(xs, x)
				}
				cell[[2]string{s.Name, x}] = pt
			}
		}
		if p.Kind == "bars" {
			xs = presentOf(p.Cats, xs)
		} else {
			slices.SortStableFunc(xs, func(a, b string) int { return cmp.Compare(xOfLabel(p, a), xOfLabel(p, b)) })
		}
		sb.WriteString("<thead>")
		row("th", head...)
		sb.WriteString("</thead>\n<tbody>\n")
		for _, x := range xs {
			fmt.Fprintf(sb, "<tr><td class=\"s\">%s</td>", escape(x))
			for _, s := range p.Series {
				pt, ok := cell[[2]string{s.Name, x}]
				switch {
				case !ok:
					sb.WriteString("<td>–</td>")
				case pt.Lo != nil && pt.Hi != nil:
					fmt.Fprintf(sb, "<td%s>%s <small>[%s, %s]; n %d</small></td>", selAttr(pt.sel), fv(pt.Y), fv(*pt.Lo), fv(*pt.Hi), pt.N)
				default:
					fmt.Fprintf(sb, "<td%s>%s <small>(n %d)</small></td>", selAttr(pt.sel), fv(pt.Y), pt.N)
				}
			}
			sb.WriteString("</tr>\n")
		}
		sb.WriteString("</tbody>\n</table>\n")
	}
}

// writeProvenance writes the table of where the data came from, its cells
// and notes escaped.
func writeProvenance(sb *strings.Builder, t report.Table) {
	if len(t.Rows) == 0 {
		return
	}
	fmt.Fprintf(sb, "<section id=\"provenance\">\n<h2>%s</h2>\n<table class=\"prov\">\n<thead><tr>", escape(t.Title))
	for _, c := range t.Columns {
		fmt.Fprintf(sb, "<th>%s</th>", escape(c))
	}
	sb.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		sb.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(sb, "<td>%s</td>", escape(c))
		}
		sb.WriteString("</tr>\n")
	}
	sb.WriteString("</tbody>\n</table>\n")
	for _, n := range t.Notes {
		fmt.Fprintf(sb, "<p class=\"data\">%s</p>\n", escape(n))
	}
	sb.WriteString("</section>\n")
}

// selAttr links a table cell to the items behind its value.
func selAttr(sel int) string {
	if sel == 0 {
		return ""
	}
	return fmt.Sprintf(` class="sel" data-sel="%d"`, sel)
}

// provenance says, under each figure, where each model's data came from:
// its runs, the ifkit that aggregated them and when, the items' source
// (all from the rows), and what about adds (from the records).
func provenance(rows []report.Row, about func(bench, model string) string) func(Figure) string {
	return func(f Figure) string {
		own := report.ApartByRun(ofBench(rows, f.Bench))
		var parts []string
		for _, c := range f.Counts {
			if c.Reference {
				continue
			}
			var runs, versions, dates, sources []string
			add := func(xs *[]string, x string) {
				if x != "" && !slices.Contains(*xs, x) {
					*xs = append(*xs, x)
				}
			}
			var model string
			for _, r := range own {
				if r.Model != c.Model {
					continue
				}
				model = strings.TrimSuffix(r.Model, report.RunLabel("", r.Run))
				add(&runs, r.Run)
				add(&versions, r.Version)
				add(&dates, strings.SplitN(r.Created, "T", 2)[0])
				add(&sources, r.Dims["source"])
			}
			if model == "" {
				continue
			}
			s := fmt.Sprintf("%s: run %s", c.Model, strings.Join(runs, ", "))
			if len(versions) > 0 {
				s += ", ifkit " + strings.Join(versions, ", ")
			}
			if len(dates) > 0 {
				s += ", aggregated " + strings.Join(dates, ", ")
			}
			if len(sources) > 0 {
				s += "; items " + strings.Join(sources, "; ")
			}
			if about != nil {
				if a := about(f.Bench, model); a != "" {
					s += "; " + a
				}
			}
			parts = append(parts, s)
		}
		if len(parts) == 0 {
			return ""
		}
		return " <span class=\"data\">Data of " + escape(strings.Join(parts, ". ")) + ".</span>"
	}
}

// presentOf keeps the categories of order found in xs.
func presentOf(order, xs []string) []string {
	var out []string
	for _, c := range order {
		if slices.Contains(xs, c) {
			out = append(out, c)
		}
	}
	return out
}

// xOfLabel is the x at which a tick label sits in a panel.
func xOfLabel(p Panel, label string) float64 {
	for _, s := range p.Series {
		for _, pt := range s.Points {
			if pt.Label == label {
				return pt.X
			}
		}
	}
	return math.Inf(1)
}
