package simrun

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// Families are the five benchmarks as a study draws their runs, small
// enough for many runs a second: a unit per item seed, or a few.
var Families = []Family{
	{Bench: "lifbench", // a multidoc context of 1k tokens per seed: 50 prompts
		Items: perSeed(func(s int) []string {
			return []string{"lifbench", "--lengths", "1k", "--scenarios", "multidoc", "--seed", strconv.Itoa(s)}
		}),
		Headline: func(r report.Row) bool {
			return r.Metric == "ARS" && r.Dims["task"] == "overall" && r.Dims["length"] == "all"
		}},
	{Bench: "ifscale", // a sample of 250 keywords per seed
		Items: func(l *Lab, seeds []int) ([]*record.Record, error) {
			return l.Items("ifscale", "--densities", "250", "--seeds", join(seeds))
		},
		Headline: func(r report.Row) bool { return r.Metric == "accuracy" && r.Nums["density"] == 250 }},
	{Bench: "longins", // eleven GIST exams of 256 tokens per seed
		Items: perSeed(func(s int) []string {
			return []string{"longins", "--lengths", "256", "--modes", "gist", "--seed", strconv.Itoa(s)}
		}),
		Headline: func(r report.Row) bool { return r.Metric == "F1" }},
	{Bench: "longgenbench", // a diary generation per seed
		Items: perSeed(func(s int) []string {
			return []string{"longgenbench", "--count", "1", "--scenarios", "diary", "--seed", strconv.Itoa(s)}
		}),
		Headline: func(r report.Row) bool { return r.Metric == "STIC-2" }},
	{Bench: "eifbench", Items: eifTasks,
		Headline: func(r report.Row) bool {
			_, breakdown := r.Nums["sub_instructions"]
			_, byCons := r.Nums["constraints_per_sub"]
			return r.Metric == "CLA" && r.Dims["subset"] == "all" && !breakdown && !byCons
		}},
}

// perSeed makes a run's requests with one gen-context call per seed, its
// items' ids marked with the seed (not every generator's ids name it); a
// seed's requests are made once per lab (a study may draw it again).
func perSeed(args func(seed int) []string) func(*Lab, []int) ([]*record.Record, error) {
	return func(l *Lab, seeds []int) ([]*record.Record, error) {
		var out []*record.Record
		for _, s := range seeds {
			a := args(s)
			key := strings.Join(a, "\x00")
			reqs, ok := l.cache[key]
			if !ok {
				its, err := l.Generate(a...)
				if err != nil {
					return nil, err
				}
				for _, it := range its {
					it.SetID(fmt.Sprintf("%s~s%d", it.ID(), s))
				}
				if reqs, err = l.Expand(its); err != nil {
					return nil, err
				}
				l.cache[key] = reqs
			}
			out = append(out, reqs...)
		}
		return out, nil
	}
}

func join(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// eifTasks draws a run's EifBench tasks: ifkit's sample set has no
// generator (six tasks, two per subset), so each seed draws, for every
// subset, one of its tasks at random, as a new task of its own id: a
// population of task types with the design's subsets.
func eifTasks(l *Lab, seeds []int) ([]*record.Record, error) {
	sample, err := l.Generate("eifbench")
	if err != nil {
		return nil, err
	}
	bySubset := map[string][]*record.Record{}
	for _, it := range sample {
		var g map[string]string
		if err := it.Decode("group", &g); err != nil {
			return nil, err
		}
		bySubset[g["subset"]] = append(bySubset[g["subset"]], it)
	}
	subsets := slices.Sorted(func(yield func(string) bool) {
		for s := range bySubset {
			if !yield(s) {
				return
			}
		}
	})
	var items []*record.Record
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for _, s := range subsets {
			it := bySubset[s][rng.IntN(len(bySubset[s]))].Clone()
			it.SetID(fmt.Sprintf("%s-s%d", it.ID(), seed))
			items = append(items, it)
		}
	}
	return l.Expand(items)
}
