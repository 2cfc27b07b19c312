package eifbench

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// All is the subset value of rows over every subset.
const All = "all"

// taskScore collects one task's constraint verdicts for one model.
type taskScore struct {
	subset string
	bySub  map[int]*subScore // judged constraints per sub-instruction (1-based)
	// Checks that failed: the record's inference (scored as unmet under
	// --failed official), the judge call (left out, as the official code
	// leaves out failed judge calls), or a sentinel reply (left out, as
	// 8_metric.py leaves out "None" and "Err").
	inferFailed, judgeFailed, sentinel int
	markers                            string // why the reply's markers were not trusted, if they were not
	truncated                          bool
}

type subScore struct {
	judged, met int
}

func (t *taskScore) failed() int { return t.inferFailed + t.judgeFailed + t.sentinel }

func (t *taskScore) judged() (judged, met int) {
	for _, s := range t.bySub {
		judged += s.judged
		met += s.met
	}
	return
}

// levels are the per-task accuracies of the paper: CLA_i, ILA_i and whether
// every constraint holds.
func (t *taskScore) levels() (cla, ila, all float64) {
	j, m := t.judged()
	full := 0
	for _, s := range t.bySub {
		if s.met == s.judged {
			full++
		}
	}
	cla = float64(m) / float64(j)
	ila = float64(full) / float64(len(t.bySub))
	if m == j {
		all = 1
	}
	return
}

type aggregator struct {
	opt    aggregate.Options
	tasks  map[[2]string]*taskScore // (model, parent id)
	seen   map[[2]string]bool       // (model, check id): a check counts once
	judges map[string]bool
}

// NewAggregator is the aggregate-ifs factory for eifbench.
func NewAggregator(opt aggregate.Options) aggregate.Aggregator {
	return &aggregator{opt: opt, tasks: map[[2]string]*taskScore{}, seen: map[[2]string]bool{}, judges: map[string]bool{}}
}

// Add takes one judged constraint (a split-subtasks child).
func (a *aggregator) Add(rec *record.Record) error {
	parent := rec.String("parent")
	if parent == "" {
		return fmt.Errorf("record %q has no parent: eifbench is aggregated from split-subtasks children (one per constraint)", rec.ID())
	}
	var g childGold
	if err := rec.Decode("gold", &g); err != nil {
		return err
	}
	if g.Sub < 1 || g.Subs < 1 {
		return fmt.Errorf("record %q: gold has no sub-instruction number", rec.ID())
	}
	model := aggregate.ModelOf(rec)
	if a.seen[[2]string{model, rec.ID()}] {
		return fmt.Errorf("check %q of model %q appears twice (inputs concatenated twice?); it would be counted twice", rec.ID(), model)
	}
	a.seen[[2]string{model, rec.ID()}] = true
	key := [2]string{model, parent}
	t := a.tasks[key]
	if t == nil {
		t = &taskScore{subset: g.Subset, bySub: map[int]*subScore{}}
		a.tasks[key] = t
	}
	t.truncated = t.truncated || aggregate.ServerTruncated(rec)
	if rec.Has("segment") {
		var seg segment
		if err := rec.Decode("segment", &seg); err != nil {
			return err
		}
		t.markers = cmp.Or(t.markers, seg.Markers)
	}
	sub := func() *subScore {
		s := t.bySub[g.Sub]
		if s == nil {
			s = &subScore{}
			t.bySub[g.Sub] = s
		}
		return s
	}
	if rec.Errored() {
		var e record.Error
		if err := rec.Decode("error", &e); err != nil {
			return err
		}
		switch {
		case e.Stage == "judge" && e.Kind == KindSentinel:
			t.sentinel++
		case e.Stage == "judge":
			t.judgeFailed++
		default:
			// The official generate step stores "" when inference fails and
			// its judge finds every constraint of it unmet.
			t.inferFailed++
			if !a.opt.ExcludeFailed() {
				sub().judged++
			}
		}
		return nil
	}
	var j record.Judgement
	if !rec.Has("judgement") {
		return fmt.Errorf("record %q has neither judgement nor error: run judge before aggregate-ifs", rec.ID())
	}
	if err := rec.Decode("judgement", &j); err != nil {
		return err
	}
	if j.Judge != nil && j.Judge.Model != "" {
		a.judges[j.Judge.Model] = true
	}
	s := sub()
	s.judged++
	if j.Verdict == judge.VerdictYes {
		s.met++
	}
	return nil
}

// cell accumulates macro averages.
type cell struct {
	cla, ila, all float64
	n             int // tasks (or sub-instructions, in the per-constraint-count breakdown)
	checks        int
	failed        int // checks
	sentinel      int // checks
	failedTasks   int // tasks with no judged check: left out
	nFailed       int // tasks with a failed check
	markers       int // tasks whose markers were not trusted
	// Whose prompt the server cut: of the n tasks (or sub-instructions),
	// of every task (failed ones too), and their checks.
	truncated, cutTasks, cutChecks int
}

func (c *cell) add(cla, ila, all float64) {
	c.cla += cla
	c.ila += ila
	c.all += all
	c.n++
}

func (c *cell) mean(v float64) float64 {
	if c.n == 0 {
		return math.NaN()
	}
	return v / float64(c.n)
}

// count adds a task's failure counts to the cell, and whether its prompt
// was cut to those of the n it counts.
func (c *cell) count(t *taskScore) {
	if t.failed() > 0 {
		c.nFailed++
	}
	if t.truncated {
		c.truncated++
	}
}

// at is the cell of k, or an empty one (printed as nan) when no task fell in it.
func at(cells map[cellKey]*cell, k cellKey) *cell {
	if c := cells[k]; c != nil {
		return c
	}
	return &cell{}
}

type cellKey struct {
	model, subset, dim string
	val                int
}

// Result computes the metrics per model × subset and the breakdowns. The
// breakdowns bucket a task by its sub-instructions with a judged constraint
// and a sub-instruction by its judged constraints, as 8_metric.py does
// (len(evaluate_subtask[main_id]), len(scores)): the data's counts unless
// judge calls failed.
func (a *aggregator) Result() (*aggregate.Result, error) {
	cells := map[cellKey]*cell{}
	get := func(k cellKey) *cell {
		c := cells[k]
		if c == nil {
			c = &cell{}
			cells[k] = c
		}
		return c
	}
	// Tasks and sub-instructions in a fixed order: the means are float sums,
	// and the same input must give byte-identical output.
	taskKeys := slices.SortedFunc(maps.Keys(a.tasks), func(x, y [2]string) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	for _, key := range taskKeys {
		t := a.tasks[key]
		model := key[0]
		judged, _ := t.judged()
		for _, sub := range []string{t.subset, All} {
			c := get(cellKey{model, sub, "", 0})
			checks := judged + t.judgeFailed + t.sentinel
			if a.opt.ExcludeFailed() {
				checks += t.inferFailed
			}
			c.checks += checks
			c.failed += t.failed()
			c.sentinel += t.sentinel
			if t.failed() > 0 {
				c.nFailed++
			}
			if t.truncated {
				c.cutTasks++
				c.cutChecks += checks
			}
			if t.markers != "" {
				c.markers++
			}
			if judged == 0 {
				c.failedTasks++
				continue
			}
			cla, ila, all := t.levels()
			c.add(cla, ila, all)
			if t.truncated {
				c.truncated++
			}
			bs := get(cellKey{model, sub, "sub_instructions", len(t.bySub)})
			bs.add(cla, ila, all)
			bs.count(t)
			for _, i := range slices.Sorted(maps.Keys(t.bySub)) {
				s := t.bySub[i]
				ok := 0.0
				if s.met == s.judged {
					ok = 1
				}
				bc := get(cellKey{model, sub, "constraints_per_sub", s.judged})
				bc.add(float64(s.met)/float64(s.judged), ok, ok)
				bc.count(t)
			}
		}
	}
	res := &aggregate.Result{Rows: rowsOf(cells)}
	if a.opt.ExcludeFailed() {
		res.Note(titleTable4, "Tasks whose inference failed are left out (--failed exclude); their checks are counted in the \"failed checks\" column.")
	} else {
		res.Note(titleTable4, "Tasks whose inference failed score 0 on every constraint, as the official generate step stores an empty reply and its judge finds every constraint of it unmet; their checks are in \"checks\" and \"failed checks\" (--failed exclude leaves them out).")
	}
	if len(a.judges) > 0 {
		res.Note(titleTable4, "Judge model: "+strings.Join(sortedKeys(a.judges), ", ")+".")
	}
	return res, nil
}

// rowsOf are the metric rows of the cells, in key order.
func rowsOf(cells map[cellKey]*cell) []report.Row {
	var out []report.Row
	keys := slices.Collect(maps.Keys(cells))
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	for _, k := range keys {
		c := cells[k]
		dims := map[string]string{"subset": k.subset}
		var nums map[string]float64
		if k.dim != "" {
			nums = map[string]float64{k.dim: float64(k.val)}
		}
		metrics := []string{"CLA", "ILA", "task_level"}
		if k.dim == "constraints_per_sub" {
			metrics = metrics[:2] // a task level has no meaning per sub-instruction
		}
		vals := map[string]float64{"CLA": c.mean(c.cla), "ILA": c.mean(c.ila), "task_level": c.mean(c.all)}
		// n_truncated counts among what n counts: tasks (or
		// sub-instructions), checks, or every task.
		row := func(metric, unit string, v float64, n, cut int) {
			out = append(out, report.Row{Bench: Bench, Model: k.model, Metric: metric, Dims: dims, Nums: nums, Value: v, Unit: unit, N: n, NFailed: c.nFailed, NTruncated: cut})
		}
		for _, m := range metrics {
			row(m, "ratio", vals[m], c.n, c.truncated)
		}
		if k.dim == "" {
			row("sentinel_replies", "count", float64(c.sentinel), c.checks, c.cutChecks)
			row("markers_ignored", "count", float64(c.markers), c.n+c.failedTasks, c.cutTasks)
			row("failed_checks", "count", float64(c.failed), c.checks, c.cutChecks)
			row("failed_tasks", "count", float64(c.failedTasks), c.n+c.failedTasks, c.cutTasks)
		}
	}
	return out
}

// counts are the rows that count checks or tasks, not a level.
var counts = []string{"sentinel_replies", "markers_ignored", "failed_checks", "failed_tasks"}

const titleTable4 = "EifBench: ILA and CLA by subset (layout of the paper's Table 4)"

// Tables lays the rows out as the paper's Table 4 (ILA and CLA per subset),
// with every level and count per subset and the two breakdowns, a line per
// model.
func Tables(rows []report.Row, opt aggregate.TableOptions) []report.Table {
	look := report.NewLookup(rows)
	f := func(v float64) string { return report.Fmt(v, opt.Decimals) }
	present := map[string]bool{}
	for _, r := range report.Match(rows, "CLA", map[string]string{"sub_instructions": "-", "constraints_per_sub": "-"}) {
		if r.Dims["subset"] != All {
			present[r.Dims["subset"]] = true
		}
	}
	subsets := orderSubsets(present)
	models := report.Models(rows)
	// whole is a subset's row over its tasks, not a breakdown's; a missing
	// one prints as nan and zeros, as a subset without tasks.
	whole := func(model, metric, subset string) report.Row {
		r, ok := look.Get(model, metric, "subset", subset, "sub_instructions", "-", "constraints_per_sub", "-")
		if !ok && !slices.Contains(counts, metric) {
			r.Value = math.NaN()
		}
		return r
	}
	t4 := report.Table{Title: titleTable4, Columns: []string{"Model"}}
	for _, s := range subsets {
		t4.Columns = append(t4.Columns, subsetTitles[s]+" ILA", subsetTitles[s]+" CLA")
	}
	t4.Columns = append(t4.Columns, "Failed tasks")
	for _, m := range models {
		row := []string{m}
		for _, s := range subsets {
			row = append(row, report.Cell(whole(m, "ILA", s), f), report.Cell(whole(m, "CLA", s), f))
		}
		t4.Rows = append(t4.Rows, append(row, strconv.Itoa(whole(m, "CLA", All).NFailed)))
	}
	t4.Notes = []string{
		"CLA: share of a task's constraints met; ILA: share of a task's sub-instructions with every constraint met; task level: share of tasks with every constraint met. All three are averaged over tasks (macro), as in the paper and the official 8_metric.py.",
		"Failed judge calls, and judge replies \"None\" or \"Err\" (the \"sentinel\" column), are left out of the metrics, as the official code leaves them out; a task with no judged check is left out and counted as a failed task. \"markers ignored\": replies whose sub-instruction markers were misnumbered, duplicated or out of order, judged on the whole reply.",
	}

	count := func(m, metric, s string) string { return report.Fmt(whole(m, metric, s).Value, 0) }
	levels := report.Table{Title: "EifBench: all levels and counts", Columns: []string{"Model", "Subset", "Tasks", "Checks", "Failed checks", "Sentinel", "Failed tasks", "Markers ignored", "Cut by server", "CLA", "ILA", "Task level"}}
	for _, m := range models {
		for _, s := range append(subsets, All) {
			cla := whole(m, "CLA", s)
			levels.Rows = append(levels.Rows, []string{m, title(s), strconv.Itoa(cla.N), strconv.Itoa(whole(m, "sentinel_replies", s).N), count(m, "failed_checks", s), count(m, "sentinel_replies", s),
				count(m, "failed_tasks", s), count(m, "markers_ignored", s), strconv.Itoa(whole(m, "markers_ignored", s).NTruncated), report.Cell(cla, f), report.Cell(whole(m, "ILA", s), f), report.Cell(whole(m, "task_level", s), f)})
		}
	}

	bySubs := report.Table{Title: "EifBench: by number of sub-instructions per task", Columns: []string{"Model", "Subset", "Sub-instructions", "Tasks", "CLA", "ILA", "Task level", "Failed tasks"}}
	byCons := report.Table{Title: "EifBench: by number of constraints per sub-instruction", Columns: []string{"Model", "Subset", "Constraints", "Sub-instructions", "CLA", "ILA", "Failed tasks"}}
	byCons.Notes = []string{"Here CLA is the mean share of a sub-instruction's constraints met and ILA the share of sub-instructions with every constraint met, over the sub-instructions with that many constraints.",
		"Both breakdowns count judged constraints and sub-instructions with a judged constraint, as the official 8_metric.py does: the data's counts unless judge calls failed.",
		"Failed tasks: tasks with a failed check (inference, judge call or sentinel reply)."}
	type bucket struct {
		model, subset, dim string
		val                float64
	}
	var buckets []bucket
	for _, r := range report.Match(rows, "CLA", nil) {
		for _, dim := range []string{"sub_instructions", "constraints_per_sub"} {
			if v, ok := r.Nums[dim]; ok {
				buckets = append(buckets, bucket{r.Model, r.Dims["subset"], dim, v})
			}
		}
	}
	slices.SortFunc(buckets, func(a, b bucket) int {
		return cmp.Or(strings.Compare(a.model, b.model), subsetRank(a.subset)-subsetRank(b.subset), strings.Compare(a.subset, b.subset), strings.Compare(a.dim, b.dim), cmp.Compare(a.val, b.val))
	})
	for _, b := range buckets {
		get := func(metric string) report.Row {
			r, _ := look.Get(b.model, metric, "subset", b.subset, b.dim, report.Fmt(b.val, -1))
			return r
		}
		cla := get("CLA")
		switch b.dim {
		case "sub_instructions":
			bySubs.Rows = append(bySubs.Rows, []string{b.model, title(b.subset), report.Fmt(b.val, -1), strconv.Itoa(cla.N), report.Cell(cla, f), report.Cell(get("ILA"), f), report.Cell(get("task_level"), f), strconv.Itoa(cla.NFailed)})
		case "constraints_per_sub":
			byCons.Rows = append(byCons.Rows, []string{b.model, title(b.subset), report.Fmt(b.val, -1), strconv.Itoa(cla.N), report.Cell(cla, f), report.Cell(get("ILA"), f), strconv.Itoa(cla.NFailed)})
		}
	}
	return []report.Table{t4, levels, bySubs, byCons}
}

func title(subset string) string {
	if t, ok := subsetTitles[subset]; ok {
		return t
	}
	if subset == All {
		return "All"
	}
	return subset
}

// subsetRank orders subsets as in Table 4, then unknown ones, then "all".
func subsetRank(s string) int {
	for i, x := range Subsets {
		if x == s {
			return i
		}
	}
	if s == All {
		return len(Subsets) + 1
	}
	return len(Subsets)
}

func orderSubsets(set map[string]bool) []string {
	ss := sortedKeys(set)
	sort.SliceStable(ss, func(i, j int) bool { return subsetRank(ss[i]) < subsetRank(ss[j]) })
	return ss
}

func lessKey(a, b cellKey) bool {
	if a.model != b.model {
		return a.model < b.model
	}
	if a.subset != b.subset {
		if ra, rb := subsetRank(a.subset), subsetRank(b.subset); ra != rb {
			return ra < rb
		}
		return a.subset < b.subset
	}
	if a.dim != b.dim {
		return a.dim < b.dim
	}
	return a.val < b.val
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
