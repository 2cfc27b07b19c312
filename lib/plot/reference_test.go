package plot_test

import (
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/ifscale"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/testbin"
)

// The published models, imported from the official result files, are drawn
// beside the run's: LIFBench's at the paper's six lengths on the log axis,
// IFScale's with their seed band.
func TestPublishedReference(t *testing.T) {
	lif, err := lifbench.ImportScores([]string{testbin.Reference(t, "lifbench", "scores")}, aggregate.Options{Decimals: 3})
	if err != nil {
		t.Fatal(err)
	}
	ifs, err := ifscale.ImportPerSample([]string{testbin.Reference(t, "ifscale", "per_sample_subset.csv")}, aggregate.Options{Decimals: 3})
	if err != nil {
		t.Fatal(err)
	}
	ref := append(append([]report.Row{}, lif.Rows...), ifs.Rows...)
	figs := plot.Build(readRows(t, "rows.jsonl"), ref, sections)
	series := func(id, name string) *plot.Series {
		for _, f := range figs {
			if f.ID != id {
				continue
			}
			for _, s := range f.Panels[0].Series {
				if s.Name == name {
					return &s
				}
			}
		}
		return nil
	}
	gpt := series("lifbench-ars-length", "gpt-4o-2024-08-06 (published)")
	if gpt == nil || !gpt.Reference {
		t.Fatal("no published gpt-4o-2024-08-06 series in the LIFBench length figure")
	}
	var labels []string
	for _, p := range gpt.Points {
		labels = append(labels, p.Label)
	}
	if got := strings.Join(labels, " "); got != "3k (4k) 6k (8k) 13k (16k) 28k (32k) 60k (64k) 120k (128k)" || gpt.Points[0].X != 3*1024 {
		t.Errorf("published lengths %s starting at %v tokens, want the budgets of 4k…128k from 3072", got, gpt.Points[0].X)
	}
	found := false
	for _, f := range figs {
		if f.ID != "ifscale-accuracy" {
			continue
		}
		for _, s := range f.Panels[0].Series {
			if s.Reference && len(s.Points) > 0 && s.Points[0].Lo != nil {
				found = true
			}
		}
	}
	if !found {
		t.Error("no published IFScale series with a seed band")
	}
}
