package lifbench

import (
	"testing"

	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

func TestNumsWin(t *testing.T) {
	r := report.Row{Dims: map[string]string{"length": "4k"}, Nums: map[string]float64{"length_tokens": 5000}}
	for _, tc := range []struct {
		row  report.Row
		want float64
		ok   bool
	}{
		{r, 5000, true},
		{report.Row{Dims: map[string]string{"length": "4k"}}, 3 * 1024, true}, // the official LIFBench 4k budget
		{report.Row{Dims: map[string]string{"length": "2k"}}, 2048, true},
		{report.Row{Dims: map[string]string{"length": "all"}}, 0, false},
	} {
		v, _, ok := plot.LengthX(lifbenchTokens)(tc.row)
		if v != tc.want || ok != tc.ok {
			t.Errorf("LengthX(%v) = %v, %v; want %v, %v", tc.row, v, ok, tc.want, tc.ok)
		}
	}
}
