package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Okabe–Ito colours: told apart with the common colour-vision deficiencies;
// markers and dashes tell series apart on a grey printout too.
var colors = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, {0xD5, 0x5E, 0x00, 0xff}, {0x00, 0x9E, 0x73, 0xff}, {0xCC, 0x79, 0xA7, 0xff},
	{0xE6, 0x9F, 0x00, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0x00, 0x00, 0x00, 0xff}, {0xF0, 0xE4, 0x42, 0xff},
}

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}

const (
	panelW   = 300 // points
	panelH   = 220
	singleW  = 480
	singleH  = 280
	maxCols  = 3
	legendRH = 14 // one legend row
)

// sans is the font of every figure: the papers' figures use a sans face, and
// the page falls back to the reader's sans-serif font (nothing is embedded
// or fetched).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// style is how one series is drawn in every panel of its figure.
type style struct {
	color color.NRGBA
	glyph draw.GlyphDrawer
	ref   bool
}

func styles(f Figure) ([]string, map[string]style) {
	var names []string
	refs := map[string]bool{}
	for _, ref := range []bool{false, true} {
		for _, p := range f.Panels {
			for _, s := range p.Series {
				if s.Reference == ref && !slices.Contains(names, s.Name) {
					names = append(names, s.Name)
					refs[s.Name] = ref
				}
			}
		}
	}
	out := map[string]style{}
	for i, n := range names {
		out[n] = style{color: colors[i%len(colors)], glyph: glyphs[i%len(glyphs)], ref: refs[n]}
	}
	return names, out
}

func (s style) line() draw.LineStyle {
	ls := draw.LineStyle{Color: s.color, Width: vg.Points(1.6)}
	if s.ref {
		ls.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return ls
}

// SVG draws a figure as an element of the HTML page. With targets, every
// point, bar and heat-map cell that shows a metric row gets a transparent
// shape over it carrying its selection (data-sel): the page's explorer
// lists the items behind it when it is clicked.
func SVG(f Figure, targets bool) ([]byte, error) {
	doc, err := render(f, targets)
	if err != nil {
		return nil, err
	}
	return inline(doc, f.Title), nil
}

// document draws a figure as a standalone SVG file (the README's figure).
func document(f Figure) ([]byte, error) { return render(f, false) }

// render draws a figure: a legend strip on top, then its panels in a grid.
func render(f Figure, targets bool) ([]byte, error) {
	names, sty := styles(f)
	cols := min(len(f.Panels), maxCols)
	rows := (len(f.Panels) + cols - 1) / cols
	w, h := vg.Length(singleW), vg.Length(singleH)
	if len(f.Panels) > 1 {
		w, h = vg.Length(panelW*cols), vg.Length(panelH*rows)
	}
	// Legend columns as wide as the longest entry (thumbnail, gap, text).
	entry := vg.Length(0)
	for _, n := range names {
		entry = max(entry, legendStyle().TextStyle.Width(n)+36)
	}
	legendCols := 1
	if entry > 0 {
		legendCols = max(1, min(len(names), int((w-8)/entry)))
	}
	legendH := vg.Length(0)
	if len(names) > 0 {
		legendH = vg.Length(legendRH*((len(names)+legendCols-1)/legendCols) + 6)
	}
	c := vgsvg.New(w, h+legendH)
	dc := draw.New(c)
	plots := make([][]*gplot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*gplot.Plot, cols)
	}
	for i, p := range f.Panels {
		pl, err := panelPlot(p, sty, w/vg.Length(cols))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.ID, err)
		}
		plots[i/cols][i%cols] = pl
	}
	for i := len(f.Panels); i < rows*cols; i++ { // an empty tile keeps the grid aligned
		pl := gplot.New()
		pl.HideAxes()
		plots[i/cols][i%cols] = pl
	}
	body := draw.Crop(dc, 0, 0, 0, -legendH)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(8), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := gplot.Align(plots, tiles, body)
	for i := range plots {
		for j := range plots[i] {
			plots[i][j].Draw(canvases[i][j])
		}
	}
	drawLegend(dc, names, sty, f.Panels, w, h, legendH, legendCols)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	svg := family.ReplaceAll(buf.Bytes(), []byte(`font-family:'$1',Arial,Helvetica,sans-serif;`))
	if !targets {
		return svg, nil
	}
	var tg bytes.Buffer
	for i, p := range f.Panels {
		pl := plots[i/cols][i%cols]
		da := pl.DataCanvas(canvases[i/cols][i%cols])
		xf, yf := pl.Transforms(&da)
		// The SVG's y axis points down; gonum's canvas has its origin at the
		// bottom left of the whole drawing.
		top := h + legendH
		writeTargets(&tg, p, pl, w/vg.Length(cols), func(x, y float64) (vg.Length, vg.Length) { return xf(x), top - yf(y) })
	}
	end := bytes.LastIndex(svg, []byte("</svg>"))
	if end < 0 || tg.Len() == 0 {
		return svg, nil
	}
	return slices.Concat(svg[:end], tg.Bytes(), svg[end:]), nil
}

// writeTargets writes a panel's click targets: a circle around each line
// point, the whole column of a bar (a low bar is hard to hit), a heat-map
// cell; at is the SVG position of data coordinates.
func writeTargets(b *bytes.Buffer, p Panel, pl *gplot.Plot, width vg.Length, at func(x, y float64) (vg.Length, vg.Length)) {
	clampY := func(y float64) float64 { return min(max(y, pl.Y.Min), pl.Y.Max) }
	target := func(sel int, shape string, args ...any) {
		if sel == 0 {
			return
		}
		fmt.Fprintf(b, `<%s class="hit" data-sel="%d" tabindex="0" `, shape, sel)
		fmt.Fprintf(b, args[0].(string), args[1:]...)
		b.WriteString(" />\n")
	}
	switch p.Kind {
	case "lines":
		for _, s := range p.Series {
			for _, pt := range s.Points {
				x, y := at(pt.X, clampY(pt.Y))
				target(pt.sel, "circle", `cx="%.2f" cy="%.2f" r="7"`, x, y)
			}
		}
	case "bars":
		n := len(p.Series)
		if n == 0 || len(p.Cats) == 0 {
			return
		}
		w := barWidth(p, width)
		for i, s := range p.Series {
			for _, pt := range s.Points {
				cx, y0 := at(float64(slices.Index(p.Cats, pt.Cat)), pl.Y.Max)
				_, y1 := at(0, pl.Y.Min)
				cx += (vg.Length(i) - vg.Length(n-1)/2) * w
				target(pt.sel, "rect", `x="%.2f" y="%.2f" width="%.2f" height="%.2f"`, cx-w/2, y0, w, y1-y0)
			}
		}
	case "heat":
		for _, c := range p.Heat.Cells {
			ci, ri := slices.Index(p.Heat.Cols, c.Col), slices.Index(p.Heat.Rows, c.Row)
			if ci < 0 || ri < 0 {
				continue
			}
			x0, y0 := at(float64(ci)-0.5, float64(ri)+0.5)
			x1, y1 := at(float64(ci)+0.5, float64(ri)-0.5)
			target(c.sel, "rect", `x="%.2f" y="%.2f" width="%.2f" height="%.2f"`, x0, y0, x1-x0, y1-y0)
		}
	}
}

func drawLegend(dc draw.Canvas, names []string, sty map[string]style, panels []Panel, w, h, legendH vg.Length, cols int) {
	bars := len(panels) > 0 && panels[0].Kind == "bars"
	colW := (w - 8) / vg.Length(cols)
	for i, n := range names {
		lg := legendStyle()
		s := sty[n]
		if bars {
			b, _ := plotter.NewBarChart(plotter.Values{1}, 8)
			b.Color, b.LineStyle = barFill(s), draw.LineStyle{Color: s.color, Width: vg.Points(1)}
			lg.Add(n, b)
		} else {
			l, sc, _ := plotter.NewLinePoints(plotter.XYs{{X: 0, Y: 0}})
			l.LineStyle = s.line()
			sc.GlyphStyle = draw.GlyphStyle{Color: s.color, Radius: vg.Points(2.5), Shape: s.glyph}
			lg.Add(n, l, sc)
		}
		col, row := i%cols, i/cols
		x0 := 8 + vg.Length(col)*colW
		top := h + legendH - 3 - vg.Length(row*legendRH)
		lg.Draw(rect(dc, x0, top-legendRH, x0+colW, top))
	}
}

// rect is the part of c between (x0, y0) and (x1, y1), origin bottom left.
func rect(c draw.Canvas, x0, y0, x1, y1 vg.Length) draw.Canvas {
	return draw.Crop(c, x0-c.Min.X, x1-c.Max.X, y0-c.Min.Y, y1-c.Max.Y)
}

func legendStyle() gplot.Legend {
	lg := gplot.NewLegend()
	lg.TextStyle.Font = font.From(sans, 10)
	lg.Top, lg.Left = true, true
	return lg
}

func barFill(s style) color.Color {
	if s.ref { // a published model's bars are pale with a strong outline
		c := s.color
		c.A = 0x50
		return c
	}
	return s.color
}

func panelPlot(p Panel, sty map[string]style, width vg.Length) (*gplot.Plot, error) {
	pl := gplot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text, pl.Y.Label.Text = p.X.Label, p.Y.Label
	setFonts(pl)
	pl.Add(plotter.NewGrid())
	var err error
	switch p.Kind {
	case "lines":
		err = drawLines(pl, p, sty)
	case "bars":
		err = drawBars(pl, p, sty, width)
	case "heat":
		err = drawHeat(pl, p)
	default:
		err = fmt.Errorf("panel kind %q", p.Kind)
	}
	if err != nil {
		return nil, err
	}
	if p.Kind != "heat" {
		pl.Y.Min = p.Y.Min
		if p.Y.Max > p.Y.Min {
			pl.Y.Max = p.Y.Max
		} else if pl.Y.Max <= pl.Y.Min {
			pl.Y.Max = pl.Y.Min + 1
		} else {
			pl.Y.Max *= 1.05
		}
	}
	return pl, nil
}

func setFonts(pl *gplot.Plot) {
	pl.Title.TextStyle.Font = font.From(sans, 11)
	for _, a := range []*gplot.Axis{&pl.X, &pl.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
	}
}

func drawLines(pl *gplot.Plot, p Panel, sty map[string]style) error {
	ticks := map[float64]string{}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		st := sty[s.Name]
		if len(s.Points) == 0 {
			continue
		}
		var band, lower plotter.XYs
		xys := make(plotter.XYs, len(s.Points))
		for i, pt := range s.Points {
			xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
			if _, ok := ticks[pt.X]; !ok {
				ticks[pt.X] = pt.Label
			}
			xmin, xmax = min(xmin, pt.X), max(xmax, pt.X)
			if pt.Lo != nil && pt.Hi != nil {
				band = append(band, plotter.XY{X: pt.X, Y: *pt.Hi})
				lower = append(lower, plotter.XY{X: pt.X, Y: *pt.Lo})
			}
		}
		if len(band) == 1 { // a lone point: its interval as an error bar
			pl.Add(errorBar{x: band[0].X, lo: lower[0].Y, hi: band[0].Y, style: st.line()})
		}
		if len(band) > 1 {
			slices.Reverse(lower)
			poly, err := plotter.NewPolygon(append(band, lower...))
			if err != nil {
				return err
			}
			fill := st.color
			fill.A = 0x38
			poly.Color, poly.LineStyle = fill, draw.LineStyle{}
			pl.Add(poly)
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.LineStyle = st.line()
		sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: vg.Points(2.5), Shape: st.glyph}
		pl.Add(l, sc)
	}
	if p.X.Log {
		pl.X.Scale = gplot.LogScale{}
		if xmin > 0 && !math.IsInf(xmin, 0) { // room around the end points of a log axis
			pl.X.Min, pl.X.Max = xmin/1.3, xmax*1.3
		}
	} else if p.X.Max > p.X.Min {
		pl.X.Min, pl.X.Max = p.X.Min, p.X.Max
	}
	xs := make([]float64, 0, len(ticks))
	for x := range ticks {
		xs = append(xs, x)
	}
	slices.Sort(xs)
	// A fixed range (densities 0–500, positions 0–100 %) keeps round ticks;
	// otherwise the ticks sit at the measured x values, with their labels.
	if p.X.Log || (p.X.Max <= p.X.Min && len(xs) <= 12) {
		step := (len(xs) + 11) / 12
		var tk []gplot.Tick
		for i, x := range xs {
			label := ticks[x]
			if label == "" {
				label = strconv.FormatFloat(x, 'g', -1, 64)
			}
			if i%max(step, 1) != 0 {
				label = ""
			}
			tk = append(tk, gplot.Tick{Value: x, Label: label})
		}
		pl.X.Tick.Marker = gplot.ConstantTicks(tk)
	} else if p.X.Max > p.X.Min {
		pl.X.Tick.Marker = roundTicks(p.X.Min, p.X.Max)
	}
	return nil
}

// roundTicks labels a fixed range in five steps of a round size (0, 100, …
// 500 for densities; 0, 20, … 100 for percents), with minor ticks between.
func roundTicks(lo, hi float64) gplot.ConstantTicks {
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var tk gplot.ConstantTicks
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e6; v += step / 2 {
		label := ""
		if math.Abs(math.Remainder(v, step)) < step/1e6 {
			label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		tk = append(tk, gplot.Tick{Value: v, Label: label})
	}
	return tk
}

// barWidth is the width of one bar: the series share 80 % of a category.
func barWidth(p Panel, width vg.Length) vg.Length {
	return (width - 60) / vg.Length(len(p.Cats)) * 0.8 / vg.Length(len(p.Series))
}

func drawBars(pl *gplot.Plot, p Panel, sty map[string]style, width vg.Length) error {
	n := len(p.Series)
	if n == 0 || len(p.Cats) == 0 {
		return nil
	}
	barW := barWidth(p, width)
	for i, s := range p.Series {
		st := sty[s.Name]
		for _, pt := range s.Points {
			b, err := plotter.NewBarChart(plotter.Values{pt.Y}, barW)
			if err != nil {
				return err
			}
			b.XMin = float64(slices.Index(p.Cats, pt.Cat))
			b.Offset = (vg.Length(i) - vg.Length(n-1)/2) * barW
			b.Color = barFill(st)
			b.LineStyle = draw.LineStyle{Color: st.color, Width: vg.Points(0.8)}
			if st.ref {
				b.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			}
			pl.Add(b)
			if pt.Lo != nil && pt.Hi != nil {
				pl.Add(errorBar{x: b.XMin, offset: b.Offset, lo: *pt.Lo, hi: *pt.Hi, style: draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}})
			}
		}
	}
	pl.NominalX(p.Cats...)
	pl.X.Min, pl.X.Max = -0.5, float64(len(p.Cats))-0.5
	return nil
}

// errorBar is a confidence interval drawn as a vertical line with caps at
// data x (a bar's category) shifted by offset (the bar's place in its
// group).
type errorBar struct {
	x      float64
	offset vg.Length
	lo, hi float64
	style  draw.LineStyle
}

func (e errorBar) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	x := trX(e.x) + e.offset
	lo, hi, w := trY(e.lo), trY(e.hi), vg.Points(2.5)
	c.StrokeLines(e.style, []vg.Point{{X: x, Y: lo}, {X: x, Y: hi}}, []vg.Point{{X: x - w, Y: lo}, {X: x + w, Y: lo}}, []vg.Point{{X: x - w, Y: hi}, {X: x + w, Y: hi}})
}

// DataRange keeps the whole interval inside the axes.
func (e errorBar) DataRange() (xmin, xmax, ymin, ymax float64) { return e.x, e.x, e.lo, e.hi }

// grid is a heat map's cells by index; a cell without data is NaN.
type grid struct {
	z          [][]float64 // [col][row]
	cols, rows int
}

func (g grid) Dims() (int, int)       { return g.cols, g.rows }
func (g grid) Z(c, r int) float64     { return g.z[c][r] }
func (g grid) X(c int) float64        { return float64(c) }
func (g grid) Y(r int) float64        { return float64(r) }
func (g grid) Min() float64           { return 0 }
func (g grid) Max() float64           { return 100 }
func (g grid) Value(c, r int) float64 { return g.z[c][r] }

func drawHeat(pl *gplot.Plot, p Panel) error {
	h := p.Heat
	g := grid{cols: len(h.Cols), rows: len(h.Rows)}
	g.z = make([][]float64, g.cols)
	for c := range g.z {
		g.z[c] = make([]float64, g.rows)
		for r := range g.z[c] {
			g.z[c][r] = math.NaN()
		}
	}
	var dark, light plotter.XYLabels
	for _, cell := range h.Cells {
		c, r := slices.Index(h.Cols, cell.Col), slices.Index(h.Rows, cell.Row)
		if c < 0 || r < 0 {
			continue
		}
		g.z[c][r] = cell.Value
		at := &light
		if cell.Value > 55 { // the palette's light end: dark text reads there
			at = &dark
		}
		at.XYs = append(at.XYs, plotter.XY{X: float64(c), Y: float64(r)})
		at.Labels = append(at.Labels, strconv.FormatFloat(math.Round(cell.Value), 'f', 0, 64))
	}
	cm := moreland.Kindlmann()
	cm.SetMin(0)
	cm.SetMax(100)
	hm := plotter.NewHeatMap(g, cm.Palette(64))
	hm.Min, hm.Max = 0, 100
	hm.NaN = color.NRGBA{0xee, 0xee, 0xee, 0xff}
	pl.Add(hm)
	for _, set := range []struct {
		l   plotter.XYLabels
		clr color.Color
	}{{dark, color.Black}, {light, color.White}} {
		if len(set.l.XYs) == 0 {
			continue
		}
		lb, err := plotter.NewLabels(set.l)
		if err != nil {
			return err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font = font.From(sans, 7)
			lb.TextStyle[i].Color = set.clr
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		}
		pl.Add(lb)
	}
	var xt, yt []gplot.Tick
	for i, c := range h.Cols {
		label := c
		if v, ok := Atof(c); ok {
			label = Tokens(v)
		}
		xt = append(xt, gplot.Tick{Value: float64(i), Label: label})
	}
	for i, r := range h.Rows {
		yt = append(yt, gplot.Tick{Value: float64(i), Label: r})
	}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = gplot.ConstantTicks(xt), gplot.ConstantTicks(yt)
	pl.X.Min, pl.X.Max = -0.5, float64(len(h.Cols))-0.5
	pl.Y.Min, pl.Y.Max = -0.5, float64(len(h.Rows))-0.5
	return nil
}

var (
	prolog    = regexp.MustCompile(`^(?s)<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
	namespace = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
	// Liberation is gonum's face (its metrics lay the text out); the reader's
	// browser may not have it, so common sans faces follow.
	family = regexp.MustCompile(`font-family:([^;"]+);`)
)

// inline makes an SVG document an element of the page: no XML prolog, no
// namespace attributes (HTML knows <svg>; the page then holds no URL at
// all), and a title for screen readers.
func inline(svg []byte, title string) []byte {
	svg = prolog.ReplaceAll(svg, nil)
	svg = namespace.ReplaceAll(svg, nil)
	i := bytes.IndexByte(svg, '>')
	if i < 0 {
		return svg
	}
	var b bytes.Buffer
	b.Write(svg[:i])
	b.WriteString(` role="img" class="figure"><title>`)
	b.WriteString(escape(title))
	b.WriteString(`</title>`)
	b.Write(svg[i+1:])
	return b.Bytes()
}
