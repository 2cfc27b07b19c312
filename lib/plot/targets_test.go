package plot_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/plot"
)

var (
	svgRe    = regexp.MustCompile(`(?s)<svg width="([\d.]+)pt" height="([\d.]+)pt".*?</svg>`)
	circleRe = regexp.MustCompile(`<circle class="hit" data-sel="(\d+)" tabindex="0" cx="([\d.]+)" cy="([\d.]+)" r="7" />`)
	rectRe   = regexp.MustCompile(`<rect class="hit" data-sel="(\d+)" tabindex="0" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" />`)
	cellRe   = regexp.MustCompile(`<td class="sel" data-sel="(\d+)">`)
	selsRe   = regexp.MustCompile(`<script type="application/json" id="x-sels">([^<]*)</script>`)
)

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// With Targets, every value drawn from a run's row (not a published one's)
// is a selection: a click target inside its figure, where the value is
// drawn, and a table cell; script#x-sels lists the rows in order.
func TestTargets(t *testing.T) {
	var b bytes.Buffer
	rows := readRows(t, "rows.jsonl")
	if err := plot.WriteHTML(&b, rows, readRows(t, "reference.jsonl"), sections, plot.Page{Decimals: 3, Targets: true}); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	m := selsRe.FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("no script#x-sels")
	}
	var sels []plot.Selection
	if err := json.Unmarshal([]byte(m[1]), &sels); err != nil {
		t.Fatal(err)
	}
	if len(sels) == 0 {
		t.Fatal("no selections")
	}
	inFigure, inTable := map[int]bool{}, map[int]bool{}
	type mark struct{ x, y, value float64 }
	byFigureSeries := map[string][]mark{}
	for _, svg := range svgRe.FindAllStringSubmatch(doc, -1) {
		w, h := num(t, svg[1]), num(t, svg[2])
		for _, c := range circleRe.FindAllStringSubmatch(svg[0], -1) {
			sel, x, y := int(num(t, c[1])), num(t, c[2]), num(t, c[3])
			if x < 0 || x > w || y < 0 || y > h {
				t.Errorf("target %d at (%v, %v) outside its %vx%v figure", sel, x, y, w, h)
			}
			inFigure[sel] = true
			s := sels[sel-1]
			k := strconv.Itoa(s.Figure) + s.Title[:strings.LastIndex(s.Title, ",")]
			byFigureSeries[k] = append(byFigureSeries[k], mark{x, y, s.Value})
		}
		for _, r := range rectRe.FindAllStringSubmatch(svg[0], -1) {
			sel, x, y, rw, rh := int(num(t, r[1])), num(t, r[2]), num(t, r[3]), num(t, r[4]), num(t, r[5])
			if x < 0 || x+rw > w+0.01 || y < 0 || y+rh > h+0.01 || rw <= 0 || rh <= 0 {
				t.Errorf("target %d (%v, %v, %v, %v) outside its %vx%v figure", sel, x, y, rw, rh, w, h)
			}
			inFigure[sel] = true
		}
	}
	for _, c := range cellRe.FindAllStringSubmatch(doc, -1) {
		inTable[int(num(t, c[1]))] = true
	}
	for i, s := range sels {
		if !inFigure[i+1] || !inTable[i+1] {
			t.Errorf("selection %d (%s, %s %s) is drawn %v, in a table %v", i+1, s.Bench, s.Model, s.Title, inFigure[i+1], inTable[i+1])
		}
		if strings.Contains(s.Model, "published") || s.Bench == "" || s.Metric == "" {
			t.Errorf("selection %d: %+v", i+1, s)
		}
	}
	// Along one series a higher value is drawn higher (SVG's y points down).
	checked := 0
	for k, ms := range byFigureSeries {
		for i := range ms {
			for j := range ms {
				if ms[i].value > ms[j].value+1e-9 && ms[i].y > ms[j].y {
					t.Errorf("%s: value %v drawn at y %v, below value %v at y %v", k, ms[i].value, ms[i].y, ms[j].value, ms[j].y)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no line series to check")
	}
	// Without Targets the page is as before: no selections, no targets.
	b.Reset()
	if err := plot.WriteHTML(&b, rows, nil, sections, plot.Page{Decimals: 3}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"data-sel", "x-sels", `class="hit"`} {
		if strings.Contains(b.String(), s) {
			t.Errorf("a page without targets holds %q", s)
		}
	}
}
