package simrun_test

import (
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/simrun"
)

// small are a few items of each benchmark, from its generator.
var small = map[string][]string{
	"lifbench":     {"lifbench", "--lengths", "1k", "--scenarios", "multidoc,onedoc"},
	"ifscale":      {"ifscale", "--densities", "10,30", "--seeds", "0,1,2,3,4,5"},
	"longins":      {"longins", "--lengths", "256", "--modes", "gist,list"},
	"longgenbench": {"longgenbench", "--count", "3", "--scenarios", "diary"},
	"eifbench":     {"eifbench"},
}

// Every benchmark's statistics give back its aggregator's rows: over all
// its units, each row's metric recomputed from the design's sums is the
// row's value (else aggregate-ifs warns and leaves the row without an
// interval), with failed records under both --failed policies.
func TestDesignsGiveBackTheirRows(t *testing.T) {
	lab, err := simrun.New(benches.All, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range benches.All {
		t.Run(b.Name, func(t *testing.T) {
			reqs, err := lab.Items(small[b.Name]...)
			if err != nil {
				t.Fatal(err)
			}
			var judged [][]*record.Record
			for _, m := range []simrun.Model{{Name: "a", Skill: 0.6, Seed: 1, FailRate: 0.2}, {Name: "b", Skill: 0.8, Seed: 2, FailRate: 0.05}} {
				recs, err := lab.Answer(reqs, m)
				if err != nil {
					t.Fatal(err)
				}
				judged = append(judged, recs)
			}
			for _, policy := range []string{"official", "exclude"} {
				out, stderr, err := lab.Aggregate(judged, "--format", "jsonl", "--failed", policy, "--bootstrap", "200")
				if err != nil {
					t.Fatalf("%v: %s", err, stderr)
				}
				if strings.Contains(stderr, "level=WARN") {
					t.Errorf("--failed %s: %s", policy, stderr)
				}
				rows, err := simrun.Rows(out)
				if err != nil {
					t.Fatal(err)
				}
				withCI, failed := 0, 0
				for _, r := range rows {
					if r.CIMethod != "" {
						withCI++
					}
					failed += r.NFailed
				}
				if withCI == 0 || failed == 0 {
					t.Errorf("--failed %s: %d rows with an interval, %d failed items: want some of both", policy, withCI, failed)
				}
			}
		})
	}
}
