package explore

import (
	"cmp"
	"slices"
	"strings"
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

// label names an answerer: its model, and its run when the model has
// several in the input.
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
			out[i] += " (run " + e.Run + ")"
		}
	}
	return out
}

// flips finds, for every two answerers, the items (same benchmark, same
// id) both answered whose scores differ; an item that failed (no score)
// differs from one that has a score. This is the explorer's one rule of
// what a flip is, kept in one function so that aggregate-ifs' own flips
// (--flips, issue 24) can take its place.
func flips(entries []entry) []flipSet {
	label := labels(entries)
	type key struct{ bench, id string }
	by := map[key]map[string]int{} // item → answerer → index
	var names []string
	for i, e := range entries {
		k := key{e.Bench, e.ID}
		if by[k] == nil {
			by[k] = map[string]int{}
		}
		by[k][label[i]] = i
		if !slices.Contains(names, label[i]) {
			names = append(names, label[i])
		}
	}
	slices.Sort(names)
	keys := make([]key, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(strings.Compare(a.bench, b.bench), strings.Compare(a.id, b.id)) })
	out := []flipSet{} // a list in the page's JSON even when empty
	total := 0
	for ai, a := range names {
		for _, b := range names[ai+1:] {
			fs := flipSet{A: a, B: b, Pairs: [][2]int{}}
			for _, k := range keys {
				i, okA := by[k][a]
				j, okB := by[k][b]
				if !okA || !okB {
					continue
				}
				fs.Both++
				if differ(entries[i].Score, entries[j].Score) && total < maxFlips {
					fs.Pairs = append(fs.Pairs, [2]int{i, j})
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

func differ(a, b *float64) bool {
	if a == nil || b == nil {
		return (a == nil) != (b == nil)
	}
	return *a != *b
}
