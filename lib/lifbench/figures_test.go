package lifbench

import (
	"strings"
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

// Every length on the ARS-by-length axis is labelled by its context
// budget: custom budgets (ctx1k, ctx2k) beside official ones (4k, a 3,072
// token budget) read in one unit, the paper's name kept in brackets.
func TestLengthsLabelledByBudget(t *testing.T) {
	var rows []report.Row
	for _, l := range []string{"ctx1k", "ctx2k", "4k", "ctx5000", "128k"} {
		ls, err := ParseLengths(l)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, report.Row{Bench: Bench, Model: "m", Metric: "ARS", Value: 0.5, N: 1,
			Dims: map[string]string{"task": "overall", "length": l}, Nums: map[string]float64{"length_tokens": float64(ls[0].Tokens)}})
	}
	var got []string
	for _, f := range figures(rows, nil) {
		if f.ID != "lifbench-ars-length" {
			continue
		}
		for _, p := range f.Panels[0].Series[0].Points {
			got = append(got, p.Label)
		}
	}
	if want := "1k 2k 3k (4k) 5000 120k (128k)"; strings.Join(got, " ") != want {
		t.Errorf("labels %q, want %q", strings.Join(got, " "), want)
	}
}
