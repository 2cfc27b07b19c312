package eifbench

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// design resamples the task: its sub-instructions and their constraints
// are answered in one reply and judged on it. A check adds to its
// sub-instruction's judged and met counts; a task's counts become its CLA,
// ILA and task level (Finish), so ILA keeps each sub-instruction whole, and
// the metrics stay macro means over tasks (and over sub-instructions, per
// constraint count). "all" is stratified by subset where each subset has
// two tasks or more.
var design = aggregate.Design{
	Unit:      "task",
	Strata:    []string{"subset"},
	Item:      checkItem,
	Finish:    finish,
	Estimator: estimator,
	Headline: func(r report.Row) int {
		if r.Dims["subset"] == All && !hasBreakdown(r) && (r.Metric == "CLA" || r.Metric == "ILA" || r.Metric == "task_level") {
			return 1
		}
		return 0
	},
}

func hasBreakdown(r report.Row) bool {
	_, a := r.Nums["sub_instructions"]
	_, b := r.Nums["constraints_per_sub"]
	return a || b
}

func checkItem(rec *record.Record, opt aggregate.Options) (aggregate.Item, bool, error) {
	parent := rec.String("parent")
	if parent == "" {
		return aggregate.Item{}, false, fmt.Errorf("record %q has no parent: eifbench is aggregated from split-subtasks children (one per constraint)", rec.ID())
	}
	var g childGold
	if err := rec.Decode("gold", &g); err != nil {
		return aggregate.Item{}, false, err
	}
	it := aggregate.Item{Unit: parent, Strata: []string{g.Subset}}
	it.AddOnce("subset|"+g.Subset, 1)
	sub := "|" + strconv.Itoa(g.Sub)
	if rec.Errored() {
		var e record.Error
		if err := rec.Decode("error", &e); err != nil {
			return aggregate.Item{}, false, err
		}
		if e.Stage != "judge" && !opt.ExcludeFailed() {
			it.Add("judged"+sub, 1) // an empty reply, every constraint unmet
		}
		return it, true, nil
	}
	var j record.Judgement
	if err := rec.Decode("judgement", &j); err != nil {
		return aggregate.Item{}, false, err
	}
	it.Add("judged"+sub, 1)
	if j.Verdict == judge.VerdictYes {
		it.Add("met"+sub, 1)
	}
	return it, true, nil
}

// finish turns one task's counts per sub-instruction into its statistics
// for its subset and for all: a task, its CLA, ILA and task level, the same
// in its bucket of sub-instruction count, and per sub-instruction in the
// bucket of its constraint count. A task with no judged check adds nothing.
func finish(sums map[string]float64) map[string]float64 {
	subset := ""
	judged, met := map[string]float64{}, map[string]float64{}
	for k, v := range sums {
		kind, rest, _ := strings.Cut(k, "|")
		switch kind {
		case "subset":
			subset = rest
		case "judged":
			judged[rest] = v
		case "met":
			met[rest] = v
		}
	}
	// Sub-instructions in order: the sums below are of fractions.
	subs := slices.Sorted(maps.Keys(judged))
	var j, m, full float64
	for _, s := range subs {
		n := judged[s]
		j, m = j+n, m+met[s]
		if met[s] == n {
			full++
		}
	}
	out := map[string]float64{}
	if j == 0 {
		return out
	}
	cla, ila, all := m/j, full/float64(len(judged)), 0.0
	if m == j {
		all = 1
	}
	for _, k := range []string{subset, All} {
		bucket := "|" + k + "|sub_instructions|" + strconv.Itoa(len(judged))
		for _, p := range []string{"|" + k, bucket} {
			out["n"+p]++
			out["CLA"+p] += cla
			out["ILA"+p] += ila
			out["task_level"+p] += all
		}
		for _, s := range subs {
			n := judged[s]
			c := "|" + k + "|constraints_per_sub|" + strconv.Itoa(int(n))
			ok := 0.0
			if met[s] == n {
				ok = 1
			}
			out["n"+c]++
			out["CLA"+c] += met[s] / n
			out["ILA"+c] += ok
		}
	}
	return out
}

func estimator(row report.Row, r *stats.Reader) stats.Estimator {
	switch row.Metric {
	case "CLA", "ILA", "task_level":
	default:
		return nil // counts of replies, markers and failures
	}
	c := "|" + row.Dims["subset"]
	for _, dim := range []string{"sub_instructions", "constraints_per_sub"} {
		if v, ok := row.Nums[dim]; ok {
			c += "|" + dim + "|" + strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	sum, n := r.Var(row.Metric+c), r.Var("n"+c)
	return func(x []float64) float64 {
		if stats.At(x, n) == 0 {
			return math.NaN()
		}
		return stats.At(x, sum) / stats.At(x, n)
	}
}
