package plot

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/report"
)

func escape(s string) string { return html.EscapeString(s) }

// The page is one file: CSS inline, SVG inline, no script, no font or image
// fetched; @media print keeps each figure with its caption and table.
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
@media print{body{max-width:none;margin:0}nav{display:none}figure{break-inside:avoid;page-break-inside:avoid}h2{break-after:avoid}}
`

// Page is what the report says about where its rows came from.
type Page struct {
	Reference string // the --reference file, if any
	Decimals  int
}

// WriteHTML writes the report page of the sections' figures built from rows
// and reference rows.
func WriteHTML(w io.Writer, rows, reference []report.Row, sections []Section, pg Page) error {
	figs := Build(rows, reference, sections)
	titles := map[string]string{}
	for _, s := range sections {
		titles[s.Bench] = s.Title
	}
	var sb strings.Builder
	const title = "ifkit report"
	fmt.Fprintf(&sb, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n", escape(title), css, escape(title))
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
	sb.WriteString("</ul></nav>\n")
	for i, f := range figs {
		if i == 0 || figs[i-1].Bench != f.Bench {
			if i > 0 {
				sb.WriteString("</section>\n")
			}
			fmt.Fprintf(&sb, "<section id=\"%s\">\n<h2>%s</h2>\n", f.Bench, titles[f.Bench])
		}
		fmt.Fprintf(&sb, "<figure id=\"%s\" data-item=\"%s\">\n", f.ID, f.ID)
		if hasData(f) {
			svg, err := SVG(f)
			if err != nil {
				return err
			}
			sb.Write(svg)
		}
		fmt.Fprintf(&sb, "<figcaption><strong>Figure %d. %s.</strong> %s</figcaption>\n", i+1, escape(f.Title), caption(f))
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

// cutCaption is what a caption says of the prompts the server cut: their
// number when every record was checked exactly, else also how far that
// number can be trusted, never "0 cut" where a cut could not have been seen.
func cutCaption(c Count) string {
	switch {
	case c.CutCheck == "" || c.CutCheck == "exact":
		return fmt.Sprintf("%d cut by the server", c.Truncated)
	case c.Truncated > 0:
		return fmt.Sprintf("%d cut by the server (%s)", c.Truncated, c.CutCheck)
	}
	return c.CutCheck
}

// caption says what was measured, how much data is behind each model and
// how much of it failed or was cut by the server, and where replies came from.
func caption(f Figure) string {
	var sb strings.Builder
	sb.WriteString(escape(upperFirst(f.Measured)) + ". ")
	var own, refs, sim []string
	for _, c := range f.Counts {
		s := fmt.Sprintf("%s: n = %d %s, %d failed, %s", c.Model, c.N, f.NUnit, c.Failed, cutCaption(c))
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
				cs := []string{r}
				for _, c := range p.Heat.Cols {
					v := "–"
					for _, cell := range p.Heat.Cells {
						if cell.Row == r && cell.Col == c {
							v = fmt.Sprintf("%s (%d)", fv(cell.Value), cell.N)
							if cell.Lo != nil && cell.Hi != nil {
								v = fmt.Sprintf("%s [%s, %s] (%d)", fv(cell.Value), fv(*cell.Lo), fv(*cell.Hi), cell.N)
							}
						}
					}
					cs = append(cs, v)
				}
				row("td", cs...)
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
					fmt.Fprintf(sb, "<td>%s <small>[%s, %s]; n %d</small></td>", fv(pt.Y), fv(*pt.Lo), fv(*pt.Hi), pt.N)
				default:
					fmt.Fprintf(sb, "<td>%s <small>(n %d)</small></td>", fv(pt.Y), pt.N)
				}
			}
			sb.WriteString("</tr>\n")
		}
		sb.WriteString("</tbody>\n</table>\n")
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
