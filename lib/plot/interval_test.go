package plot_test

import (
	"bytes"
	"testing"

	"github.com/ifkit/ifkit/lib/plot"
)

// An interval is drawn wherever a value is: an error bar on a bar, and on
// a line's lone point (where no band can be drawn); the drawing without
// the intervals differs.
func TestIntervalsDrawn(t *testing.T) {
	lo, hi := 0.2, 0.9
	for _, tc := range []struct {
		name  string
		panel func(with bool) plot.Panel
	}{
		{"bars", func(with bool) plot.Panel {
			p := plot.Point{Cat: "a", Y: 0.5}
			if with {
				p.Lo, p.Hi = &lo, &hi
			}
			return plot.Panel{Kind: "bars", Cats: []string{"a", "b"}, Series: []plot.Series{{Name: "m", Points: []plot.Point{p, {Cat: "b", Y: 0.4}}}}}
		}},
		{"a lone point", func(with bool) plot.Panel {
			p := plot.Point{X: 1, Label: "1", Y: 0.5}
			if with {
				p.Lo, p.Hi = &lo, &hi
			}
			return plot.Panel{Kind: "lines", Series: []plot.Series{{Name: "m", Points: []plot.Point{p}}}}
		}},
	} {
		draw := func(with bool) []byte {
			svg, err := plot.SVG(plot.Figure{ID: "f", Title: "f", Panels: []plot.Panel{tc.panel(with)}}, false)
			if err != nil {
				t.Fatal(err)
			}
			return svg
		}
		if bytes.Equal(draw(true), draw(false)) {
			t.Errorf("%s: the interval is not drawn", tc.name)
		}
	}
}
