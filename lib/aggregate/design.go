package aggregate

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
)

// Design is what a benchmark tells aggregate-ifs about the statistics of
// its metrics (bench.Bench.Design), for the confidence interval of every row
// and the paired comparisons of --compare: its independent unit (the items
// that move together: the prompts of one context, the checks of one
// generation), each record's sufficient statistics within its unit, and
// each metric as a function of the statistics summed over units, so that a
// resample of units recomputes the paper's metric itself (lib/stats).
type Design struct {
	// Unit names the independent unit, singular ("context"); rows carry it
	// as ci_unit.
	Unit string
	// Strata name the levels of Item.Strata, finest first ("scenario and
	// length", "length"): the resampling keeps the strata of the first level
	// at which each has two units or more.
	Strata []string
	// Item reads a record the aggregator took (a record left out by
	// --exclude-truncated never comes): its unit and its statistics. ok is
	// false when the record adds nothing to the metrics (a failed record
	// under --failed exclude).
	Item func(rec *record.Record, opt Options) (it Item, ok bool, err error)
	// Finish, when set, turns the summed statistics of one unit's items into
	// the unit's statistics (EifBench: a task's CLA and ILA from its checks).
	Finish func(sums map[string]float64) map[string]float64
	// Estimator is a row's metric from the statistics summed over a sample
	// of units, built with the reader that names them; nil when the row has
	// no interval (a count of failures, say).
	Estimator func(row report.Row, r *stats.Reader) stats.Estimator
	// Headline says which rows --compare compares: 1 where higher is
	// better, −1 where lower is, 0 for the rows it leaves out.
	Headline func(row report.Row) int
}

// HigherIsBetter is a Design.Headline that compares the rows of the named
// metrics, higher being better, and no others.
func HigherIsBetter(metrics ...string) func(report.Row) int {
	return func(r report.Row) int {
		if slices.Contains(metrics, r.Metric) {
			return 1
		}
		return 0
	}
}

// Item is one record's part in its unit's statistics.
type Item struct {
	Unit   string   // the unit's key: the records of one key are resampled together
	Strata []string // the unit's stratum at each level of Design.Strata
	Stats  []Stat   // summed over the unit's items
	// Once are statistics of the unit itself that each of its items carries
	// (a generation's completion rate on each of its checks): counted once.
	Once []Stat
}

// Add adds a statistic of the item.
func (it *Item) Add(name string, v float64) { it.Stats = append(it.Stats, Stat{name, v}) }

// AddOnce adds a statistic of the item's unit (Once).
func (it *Item) AddOnce(name string, v float64) { it.Once = append(it.Once, Stat{name, v}) }

// Stat is one named sufficient statistic.
type Stat struct {
	Name  string
	Value float64
}

// arm is one model's scored items of one benchmark in one run: what its
// rows' intervals resample and what --compare pairs.
type arm struct {
	run, bench, model string
	items             []armItem
}

type armItem struct {
	id string
	Item
	scored *Scored // what --flips compares (only with --flips)
}

// units sums the items into units over vars, in a canonical order (units by
// key, items by id), so that the statistics do not depend on the order the
// records came in.
func units(d Design, items []armItem, vars *stats.Vars) []stats.Unit {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b armItem) int { return cmp.Or(strings.Compare(a.Unit, b.Unit), strings.Compare(a.id, b.id)) })
	var out []stats.Unit
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Unit == sorted[i].Unit {
			j++
		}
		u := stats.Unit{Key: sorted[i].Unit, Strata: sorted[i].Strata}
		var entries []stats.Entry
		if d.Finish != nil {
			sums := map[string]float64{}
			for _, it := range sorted[i:j] {
				for _, s := range it.Stats {
					sums[s.Name] += s.Value
				}
			}
			for _, s := range sorted[i].Once {
				sums[s.Name] += s.Value
			}
			fin := d.Finish(sums)
			for _, name := range slices.Sorted(maps.Keys(fin)) {
				entries = append(entries, stats.Entry{Var: vars.Add(name), Value: fin[name]})
			}
		} else {
			for _, it := range sorted[i:j] {
				for _, s := range it.Stats {
					entries = append(entries, stats.Entry{Var: vars.Add(s.Name), Value: s.Value})
				}
			}
			for _, s := range sorted[i].Once {
				entries = append(entries, stats.Entry{Var: vars.Add(s.Name), Value: s.Value})
			}
		}
		u.Stats = stats.Sum(entries)
		out = append(out, u)
		i = j
	}
	return out
}
