package aggregate

import (
	"slices"
	"strings"
	"testing"
)

func TestFlips(t *testing.T) {
	s := func(id string, score float64, failed bool) Scored {
		return Scored{ID: id, Bench: "b", Score: new(score), Failed: failed}
	}
	base := []Scored{s("a", 1, false), s("b", 0.5, false), s("c", 0, false), s("d", 0, true), s("e", 1, false), s("g", 0, true)}
	other := []Scored{s("e", 0, false), s("b", 0.5, false), s("c", 0, true), s("d", 1, false), s("f", 1, false), s("a", 0.25, false), s("g", 0, true)}
	var ids []string
	for _, f := range Flips(base, other) {
		ids = append(ids, f.Base.ID+">"+f.Other.ID)
	}
	// a changed, b the same, c failed on one side, d failed on the other, e
	// changed, f only in other, g failed on both.
	if want := []string{"a>a", "c>c", "d>d", "e>e"}; !slices.Equal(ids, want) {
		t.Errorf("flips %v, want %v", ids, want)
	}
}

// --compare X: the baseline is X's arm in each benchmark; with several arms
// of X (a run of two models), an arm is paired with its own model's.
func TestPairs(t *testing.T) {
	arms := map[armKey]*arm{}
	add := func(run, bench, model string) {
		arms[armKey{run, bench, model, ""}] = &arm{run: run, bench: bench, model: model}
	}
	add("r1", "x", "a")
	add("r1", "x", "b")
	add("r2", "x", "a")
	add("r2", "x", "b")
	add("r1", "y", "a")
	ps, err := pairs(arms, "r1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.base.run+"/"+p.base.model+"<"+p.other.run+"/"+p.other.model)
	}
	if want := []string{"r1/a<r2/a", "r1/b<r2/b"}; !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	if _, err := pairs(arms, "a"); err == nil {
		t.Error("model a of two runs paired with model b of either: want it refused as ambiguous")
	}
}

// --compare X where every answer is X's says what to give instead, rather
// than comparing nothing: a run id where X has several runs.
func TestPairsNothingToCompare(t *testing.T) {
	arms := map[armKey]*arm{}
	for _, run := range []string{"r1", "r2"} {
		arms[armKey{run, "x", "a", ""}] = &arm{run: run, bench: "x", model: "a"}
	}
	if _, err := pairs(arms, "a"); err == nil || !strings.Contains(err.Error(), "give one run's id") {
		t.Errorf("model a of two runs, alone: %v; want it refused, asking for a run id", err)
	}
	ps, err := pairs(arms, "r1")
	if err != nil || len(ps) != 1 || ps[0].other.run != "r2" {
		t.Errorf("run r1 against r2: %v, %v", ps, err)
	}
	delete(arms, armKey{"r2", "x", "a", ""})
	if _, err := pairs(arms, "a"); err == nil || !strings.Contains(err.Error(), "nothing to compare") {
		t.Errorf("one arm: %v; want it refused", err)
	}
}
