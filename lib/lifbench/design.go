package lifbench

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// design resamples the context: every prompt of one scenario at one length
// (of one seed) is built on the same long text, so a model's trouble with
// that text moves all of them together. The strata are the scenario and
// length when each holds two contexts or more (several seeds), else the
// length. A prompt's statistics are its task's at its length: the count,
// the score and each point summed, and the same per expression and
// variable group, from which ARS (a weighted mean of task means), IFP and
// the IFS stability statistic are recomputed whole on every resample.
var design = aggregate.Design{
	Unit:      "context",
	Strata:    []string{"scenario and length", "length"},
	Item:      item,
	Estimator: estimator,
	Headline: func(r report.Row) int {
		switch {
		case r.Metric == "ARS" && r.Dims["task"] == "overall":
			return 1
		case r.Metric == "IFS" && r.Dims["perspective"] == "avg":
			return -1
		}
		return 0
	},
}

// contextOf is the id of the context a prompt was built on: its own id
// without the task, expression and variable expand-templates appended.
func contextOf(id string) string {
	parts := strings.Split(id, "/")
	if len(parts) <= 3 {
		return id
	}
	return strings.Join(parts[:len(parts)-3], "/")
}

func item(rec *record.Record, opt aggregate.Options) (aggregate.Item, bool, error) {
	s, err := sampleOf(rec)
	if err != nil || s.failed && opt.ExcludeFailed() {
		return aggregate.Item{}, false, err
	}
	var g map[string]string
	if rec.Has("group") {
		rec.Decode("group", &g)
	}
	it := aggregate.Item{Unit: contextOf(rec.ID()), Strata: []string{g["scenario"] + " " + s.length, s.length}}
	c := "|" + s.task.Name + "|" + s.length
	it.Add("n"+c, 1)
	it.Add("s"+c, s.score)
	for i, p := range s.points {
		it.Add("p"+c+"|"+strconv.Itoa(i), p)
	}
	it.Add("en"+c+"|"+s.expression, 1)
	it.Add("es"+c+"|"+s.expression, s.score)
	it.Add("vn"+c+"|"+s.variable, 1)
	it.Add("vs"+c+"|"+s.variable, s.score)
	return it, true, nil
}

// sums are the indices of a count and a score summed over some lengths.
type sums struct{ n, s []int }

func (g sums) get(x []float64) (score, count float64) {
	for i := range g.n {
		score += stats.At(x, g.s[i])
		count += stats.At(x, g.n[i])
	}
	return score, count
}

// taskStats are one task's statistics over the lengths a row covers.
type taskStats struct {
	task   *Task
	all    sums
	points [][]int           // per point, over the lengths
	groups map[string][]sums // perspective → its groups
}

// readTask finds a task's statistics at length ("all": every length).
func readTask(r *stats.Reader, t *Task, length string) taskStats {
	lengths := map[string]bool{}
	keys := map[string]map[string]bool{"en": {}, "vn": {}}
	for _, name := range r.Names() {
		parts := strings.Split(name, "|")
		if len(parts) < 3 || parts[1] != t.Name || length != "all" && parts[2] != length {
			continue
		}
		switch parts[0] {
		case "n":
			lengths[parts[2]] = true
		case "en", "vn":
			keys[parts[0]][parts[3]] = true
		}
	}
	ls := sortedSet(lengths)
	ts := taskStats{task: t, points: make([][]int, len(t.Points)), groups: map[string][]sums{}}
	for _, l := range ls {
		c := "|" + t.Name + "|" + l
		n, sc := r.Var("n"+c), r.Var("s"+c)
		ts.all.n, ts.all.s = append(ts.all.n, n), append(ts.all.s, sc)
		ts.groups["length"] = append(ts.groups["length"], sums{[]int{n}, []int{sc}})
		for i := range t.Points {
			ts.points[i] = append(ts.points[i], r.Var("p"+c+"|"+strconv.Itoa(i)))
		}
	}
	for _, p := range []struct{ name, n, s string }{{"expression", "en", "es"}, {"variable", "vn", "vs"}} {
		for _, k := range sortedSet(keys[p.n]) {
			var g sums
			for _, l := range ls {
				c := "|" + t.Name + "|" + l + "|" + k
				g.n, g.s = append(g.n, r.Var(p.n+c)), append(g.s, r.Var(p.s+c))
			}
			ts.groups[p.name] = append(ts.groups[p.name], g)
		}
	}
	return ts
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func estimator(row report.Row, r *stats.Reader) stats.Estimator {
	length := row.Dims["length"]
	tasks := func() []taskStats {
		var out []taskStats
		for _, t := range Tasks {
			out = append(out, readTask(r, t, length))
		}
		return out
	}
	switch row.Metric {
	case "ARS":
		if row.Dims["task"] == "overall" {
			ts := tasks()
			return func(x []float64) float64 {
				var num, den float64
				for _, t := range ts {
					if s, n := t.all.get(x); n > 0 {
						num += t.task.Total() * s / n
						den += t.task.Total()
					}
				}
				return num / den // NaN when no task has a prompt
			}
		}
		t, ok := TaskByName(row.Dims["task"])
		if !ok {
			return nil
		}
		ts := readTask(r, t, length)
		return func(x []float64) float64 {
			s, n := ts.all.get(x)
			return s / n
		}
	case "IFP":
		c := row.Dims["capability"]
		ts := tasks()
		return func(x []float64) float64 {
			var num, den float64
			for _, t := range ts {
				_, n := t.all.get(x)
				if n == 0 {
					continue
				}
				for i, p := range t.task.Points {
					if slices.Contains(p.Capabilities, c) {
						var sum float64
						for _, j := range t.points[i] {
							sum += stats.At(x, j)
						}
						num += sum / n * p.Max
						den += p.Max
					}
				}
			}
			return num / den
		}
	case "IFS":
		ts := tasks()
		if p := row.Dims["perspective"]; p != "avg" {
			return func(x []float64) float64 { return stability(x, ts, p) }
		}
		return func(x []float64) float64 {
			var vals []float64
			for _, p := range perspectives {
				if v := stability(x, ts, p.name); !math.IsNaN(v) {
					vals = append(vals, v)
				}
			}
			return mean(vals)
		}
	}
	return nil
}

// stability is IFS for one perspective: the mean over tasks of the sample
// standard deviation of the group means over the task's mean, for the
// tasks with two groups or more and a positive mean.
func stability(x []float64, ts []taskStats, perspective string) float64 {
	var vals []float64
	for _, t := range ts {
		s, n := t.all.get(x)
		if n == 0 || s <= 0 {
			continue
		}
		var means []float64
		for _, g := range t.groups[perspective] {
			if gs, gn := g.get(x); gn > 0 {
				means = append(means, gs/gn)
			}
		}
		if len(means) < 2 {
			continue
		}
		m := mean(means)
		var v float64
		for _, g := range means {
			v += (g - m) * (g - m)
		}
		vals = append(vals, math.Sqrt(v/float64(len(means)-1))/(s/n))
	}
	return mean(vals)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
