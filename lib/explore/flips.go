package explore

import (
	"slices"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/report"
)

// flipSet is the run diff of two answerers (a model, or one run of a model
// when the input has several): the items both answered, and those whose
// scores differ as pairs of indexes into the index's items (A's, B's).
type flipSet struct {
	A     string   `json:"a"`
	B     string   `json:"b"`
	Both  int      `json:"both"`
	Pairs [][2]int `json:"pairs"`
}

// maxFlips bounds the pairs the page lists, over all answerer pairs.
const maxFlips = 200_000

// labels name each entry's answerer: its model, and its run when the model
// has several in the input.
func labels(entries []entry) []string {
	runs := map[string][]string{}
	for _, e := range entries {
		if !slices.Contains(runs[e.Model], e.Run) {
			runs[e.Model] = append(runs[e.Model], e.Run)
		}
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Model
		if len(runs[e.Model]) > 1 {
			out[i] = report.RunLabel(e.Model, e.Run)
		}
	}
	return out
}

// side is one answerer's items of one benchmark, as aggregate.Flips reads
// them, and where each is in the index.
type side struct {
	scored []aggregate.Scored
	at     map[string]int // id → index of the entry
}

// flips finds, for every two answerers, the items (same benchmark, same
// id) both answered whose scores differ: aggregate.Flips, the rule --flips
// writes by, benchmark by benchmark.
func flips(entries []entry) []flipSet {
	label := labels(entries)
	sides := map[[2]string]*side{} // answerer, bench
	var names, benches []string
	for i, e := range entries {
		k := [2]string{label[i], e.Bench}
		s := sides[k]
		if s == nil {
			s = &side{at: map[string]int{}}
			sides[k] = s
		}
		s.scored = append(s.scored, aggregate.Scored{ID: e.ID, Bench: e.Bench, Model: e.Model, Run: e.Run, Score: e.Score, Failed: e.Flags&flagFailed != 0})
		s.at[e.ID] = i
		if !slices.Contains(names, label[i]) {
			names = append(names, label[i])
		}
		if !slices.Contains(benches, e.Bench) {
			benches = append(benches, e.Bench)
		}
	}
	slices.Sort(names)
	slices.Sort(benches)
	out := []flipSet{} // a list in the page's JSON even when empty
	total := 0
	for ai, a := range names {
		for _, b := range names[ai+1:] {
			fs := flipSet{A: a, B: b, Pairs: [][2]int{}}
			for _, bench := range benches {
				x, y := sides[[2]string{a, bench}], sides[[2]string{b, bench}]
				if x == nil || y == nil {
					continue
				}
				for id := range x.at {
					if _, ok := y.at[id]; ok {
						fs.Both++
					}
				}
				for _, f := range aggregate.Flips(x.scored, y.scored) {
					if total == maxFlips {
						break
					}
					fs.Pairs = append(fs.Pairs, [2]int{x.at[f.Base.ID], y.at[f.Other.ID]})
					total++
				}
			}
			if fs.Both > 0 {
				out = append(out, fs)
			}
		}
	}
	return out
}
