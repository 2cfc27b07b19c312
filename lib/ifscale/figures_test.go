package ifscale

import (
	"testing"

	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
)

// The caption counts come from the summary rows' N, NFailed and NTruncated,
// else (rows written before the one schema) from the benchmark's own
// "failed" rows.
func TestCounts(t *testing.T) {
	old := []report.Row{
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Dims: map[string]string{"density": "10"}, Value: 90, N: 8},
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Dims: map[string]string{"density": "50"}, Value: 80, N: 9},
		{Bench: "ifscale", Model: "m", Metric: "failed", Dims: map[string]string{"density": "10"}, Value: 2, N: 10},
		{Bench: "ifscale", Model: "m", Metric: "failed", Dims: map[string]string{"density": "50", "simulated": "true"}, Value: 1, N: 10},
	}
	schema := []report.Row{
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Nums: map[string]float64{"density": 10}, Value: 90, N: 8, NFailed: 2, NTruncated: 3},
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Nums: map[string]float64{"density": 50}, Value: 80, N: 9, NFailed: 1},
		{Bench: "ifscale", Model: "m", Metric: "stdev", Nums: map[string]float64{"density": 50}, Value: 3, N: 9, NFailed: 1},
	}
	for _, tc := range []struct {
		rows []report.Row
		want plot.Count
	}{
		{old, plot.Count{Model: "m", N: 17, Failed: 3, Simulated: true}},
		{schema, plot.Count{Model: "m", N: 17, Failed: 3, Truncated: 3}},
	} {
		figs := figures(tc.rows, nil)
		if got := figs[0].Counts; len(got) != 1 || got[0] != tc.want {
			t.Errorf("counts %+v, want %+v", got, tc.want)
		}
	}
}

// Rows per seed (a "seed" dimension) are not averaged into the curves.
func TestIFScaleIgnoresPerSeedRows(t *testing.T) {
	rows := []report.Row{
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Dims: map[string]string{"density": "10"}, Value: 90, N: 2},
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Dims: map[string]string{"density": "10"}, Nums: map[string]float64{"seed": 1}, Value: 80, N: 1},
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Dims: map[string]string{"density": "10", "seed": "0"}, Value: 100, N: 1},
	}
	s := figures(rows, nil)[0].Panels[0].Series
	if len(s) != 1 || len(s[0].Points) != 1 || s[0].Points[0].Y != 90 {
		t.Errorf("series %+v, want one point at 90", s)
	}
}
