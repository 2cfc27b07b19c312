package longins

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/fsum"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

type cell struct {
	model, mode string
	length      int
}

type cellStats struct {
	f1             fsum.Sum // correctly rounded: the mean does not depend on the records' order
	exams, failed  int      // exams counts the failed ones when they are scored (--failed official)
	truncated      int      // exams whose prompt the server cut
	depthHit       [10]int
	depthTotal     [10]int
	depthCut       [10]int // wrong answers at the depth in exams the server cut
	emptyGoldExams int
	overLimit      int // exams whose reply the official eval.py cannot read (Predicted)
}

type aggregator struct {
	opt   aggregate.Options
	cells map[cell]*cellStats
}

// NewAggregator is the aggregate-ifs factory for LongIns.
func NewAggregator(opt aggregate.Options) aggregate.Aggregator {
	return &aggregator{opt: opt, cells: map[cell]*cellStats{}}
}

func (a *aggregator) Add(rec *record.Record) error {
	e, err := examOf(rec)
	if err != nil {
		return err
	}
	k := cell{aggregate.ModelOf(rec), e.mode, e.length}
	c := a.cells[k]
	if c == nil {
		c = &cellStats{}
		a.cells[k] = c
	}
	cut := aggregate.ServerTruncated(rec)
	if cut {
		c.truncated++
	}
	if e.failed {
		c.failed++
		if a.opt.ExcludeFailed() {
			return nil
		}
	}
	c.exams++
	c.f1.Add(e.f1)
	if !e.failed && e.goldWrong == 0 {
		c.emptyGoldExams++
	}
	if e.overLimit {
		c.overLimit++
	}
	for _, h := range e.hits {
		c.depthTotal[h.Depth]++
		if h.Hit {
			c.depthHit[h.Depth]++
		}
		if cut {
			c.depthCut[h.Depth]++
		}
	}
	return nil
}

// exam is one judged (or failed) exam as the metrics read it.
type exam struct {
	mode      string
	length    int
	failed    bool
	f1        float64
	hits      []Hit // each gold wrong answer at its depth bucket (0–9), found or not
	goldWrong int
	overLimit bool // a reply the official eval.py cannot read (Predicted)
}

func examOf(rec *record.Record) (exam, error) {
	var group struct {
		Mode   string `json:"mode"`
		Length string `json:"length"`
	}
	if err := rec.Decode("group", &group); err != nil {
		return exam{}, err
	}
	length, err := strconv.Atoi(group.Length)
	if err != nil || !validMode(group.Mode) {
		return exam{}, fmt.Errorf("record %q: want group.mode (gist, list, limt) and a numeric group.length, got %q and %q", rec.ID(), group.Mode, group.Length)
	}
	e := exam{mode: group.Mode, length: length}
	if rec.Errored() {
		// The official runner keeps an empty response, and eval.py scores it:
		// no bracketed id, F1 0 (eval.py calculate_f1_score). Naming no wrong
		// answer, it misses every one of them at its depth.
		e.failed = true
		var g Gold
		if err := rec.Decode("gold", &g); err != nil {
			return exam{}, err
		}
		for _, d := range g.Depths {
			e.hits = append(e.hits, Hit{Depth: min(9, max(0, d))})
		}
		return e, nil
	}
	var j struct {
		Score  *float64 `json:"score"`
		Detail struct {
			Hits      []Hit `json:"hits"`
			GoldWrong int   `json:"gold_wrong"`
			OverLimit int   `json:"int_over_limit"`
		} `json:"detail"`
	}
	if err := rec.Decode("judgement", &j); err != nil {
		return exam{}, err
	}
	if j.Score == nil {
		return exam{}, fmt.Errorf("record %q has no judgement: run judge before aggregate-ifs", rec.ID())
	}
	e.f1, e.goldWrong, e.overLimit = *j.Score, j.Detail.GoldWrong, j.Detail.OverLimit > 0
	for _, h := range j.Detail.Hits {
		h.Depth = min(9, max(0, h.Depth))
		e.hits = append(e.hits, h)
	}
	return e, nil
}

func (a *aggregator) Result() (*aggregate.Result, error) {
	keys := make([]cell, 0, len(a.cells))
	for k := range a.cells {
		keys = append(keys, k)
	}
	modeRank := func(m string) int { return slices.Index(Modes, m) }
	slices.SortFunc(keys, func(x, y cell) int {
		if c := modeRank(x.mode) - modeRank(y.mode); c != 0 {
			return c
		}
		if c := strings.Compare(x.model, y.model); c != 0 {
			return c
		}
		return x.length - y.length
	})
	res := &aggregate.Result{}
	overLimit := map[string]int{}
	nan := func(num, den float64) float64 {
		if den == 0 {
			return math.NaN()
		}
		return num / den
	}
	for _, k := range keys {
		c := a.cells[k]
		dims := map[string]string{"mode": k.mode, "length": strconv.Itoa(k.length)}
		nums := map[string]float64{"length_tokens": float64(k.length)}
		res.Rows = append(res.Rows, report.Row{Bench: Bench, Model: k.model, Metric: "F1", Dims: dims, Nums: nums, Value: nan(100*c.f1.Value(), float64(c.exams)), Unit: "percent", N: c.exams, NFailed: c.failed, NTruncated: c.truncated},
			report.Row{Bench: Bench, Model: k.model, Metric: "empty_gold", Dims: dims, Nums: nums, Value: float64(c.emptyGoldExams), Unit: "count", N: c.exams, NFailed: c.failed, NTruncated: c.truncated})
		overLimit[k.mode] += c.overLimit
		for d := range 10 {
			if c.depthTotal[d] == 0 {
				continue
			}
			dn := map[string]float64{"length_tokens": float64(k.length), "depth": float64(d)}
			res.Rows = append(res.Rows, report.Row{Bench: Bench, Model: k.model, Metric: "depth_accuracy", Dims: dims, Nums: dn, Value: 100 * float64(c.depthHit[d]) / float64(c.depthTotal[d]), Unit: "percent", N: c.depthTotal[d], NFailed: c.failed, NTruncated: c.depthCut[d]})
		}
	}
	for _, mode := range Modes {
		if n := overLimit[mode]; n > 0 {
			res.Note(f1Title(mode), fmt.Sprintf("Exams whose reply names a number of more than %d digits inside [...]: %d. The official eval.py stops on such a reply with ValueError (int() on Python 3.10.7 and later), so it has no official score; it is scored as eval.py scores it without that limit, the number naming no question.", pystr.IntMaxStrDigits, n))
		}
	}
	return res, nil
}

// f1Title is the title of a mode's F1 table.
func f1Title(mode string) string {
	return fmt.Sprintf("LongIns %s: F1 × 100 by exam length (tokens)", strings.ToUpper(mode))
}

// Tables lays the rows out as the paper's Table 3, one per mode (F1 × 100
// by model and exam length), and a depth × length table per model and mode:
// the share (%) of wrong answers found at each depth.
func Tables(rows []report.Row, opt aggregate.TableOptions) []report.Table {
	look := report.NewLookup(rows)
	f := func(v float64) string { return report.Fmt(v, opt.Decimals) }
	type modeOf struct{ model, mode string }
	lengths := map[string][]float64{}
	var pairs []modeOf
	for _, r := range report.Match(rows, "F1", nil) {
		mode, l := r.Dims["mode"], r.Nums["length_tokens"]
		if !slices.Contains(lengths[mode], l) {
			lengths[mode] = append(lengths[mode], l)
		}
		if !slices.Contains(pairs, modeOf{r.Model, mode}) {
			pairs = append(pairs, modeOf{r.Model, mode})
		}
	}
	slices.SortFunc(pairs, func(x, y modeOf) int {
		return cmp.Or(slices.Index(Modes, x.mode)-slices.Index(Modes, y.mode), strings.Compare(x.model, y.model))
	})
	var out []report.Table
	for _, mode := range Modes {
		ls := lengths[mode]
		if len(ls) == 0 {
			continue
		}
		slices.Sort(ls)
		t := report.Table{Title: f1Title(mode), Columns: []string{"model"}, Scope: map[string]string{"mode": mode}}
		for _, l := range ls {
			t.Columns = append(t.Columns, report.Fmt(l, -1))
		}
		t.Columns = append(t.Columns, "exams", "failed", "cut by server", "empty gold")
		for _, p := range pairs {
			if p.mode != mode {
				continue
			}
			row := []string{p.model}
			exams, failed, empty, truncated := 0, 0, 0, 0
			for _, l := range ls {
				lt := report.Fmt(l, -1)
				r, ok := look.Get(p.model, "F1", "mode", mode, "length_tokens", lt)
				failed += r.NFailed
				truncated += r.NTruncated
				if !ok || r.N == 0 {
					row = append(row, "–")
					continue
				}
				row = append(row, report.Cell(r, f))
				exams += r.N
				if e, ok := look.Get(p.model, "empty_gold", "mode", mode, "length_tokens", lt); ok {
					empty += int(e.Value)
				}
			}
			t.Rows = append(t.Rows, append(row, strconv.Itoa(exams), strconv.Itoa(failed), strconv.Itoa(truncated), strconv.Itoa(empty)))
		}
		t.Notes = []string{"Mean F1 between the predicted and the gold wrong-question ids (the integers inside [...] of the reply), as the official eval.py; an exam with no gold wrong answer, or a reply naming none, scores 0 and is counted (\"empty gold\"). \"cut by server\": replies to a prompt the server shortened."}
		if opt.Failed != "" {
			t.Notes = append(t.Notes, failedNote(opt.Failed))
		}
		out = append(out, t)
	}
	for _, p := range pairs {
		ls := lengths[p.mode]
		t := report.Table{Title: fmt.Sprintf("LongIns %s, %s: wrong answers found (%%) by depth and exam length", strings.ToUpper(p.mode), p.model), Columns: []string{"depth"},
			Scope: map[string]string{"mode": p.mode, "model": p.model}}
		for _, l := range ls {
			t.Columns = append(t.Columns, report.Fmt(l, -1))
		}
		for d := range 10 {
			row := []string{strconv.Itoa(d)}
			for _, l := range ls {
				r, ok := look.Get(p.model, "depth_accuracy", "mode", p.mode, "length_tokens", report.Fmt(l, -1), "depth", strconv.Itoa(d))
				if !ok || r.N == 0 {
					row = append(row, "–")
					continue
				}
				row = append(row, report.Cell(r, f))
			}
			t.Rows = append(t.Rows, row)
		}
		failed := 0
		for _, r := range look.All(p.model, "F1", "mode", p.mode) {
			failed += r.NFailed
		}
		note := fmt.Sprintf("failed: %d exams failed before scoring", failed)
		if opt.Failed != "" {
			note += "; " + depthFailedNote(opt.Failed)
		} else {
			note += "."
		}
		t.Notes = []string{"Depth 0 is the first tenth of the exam, 9 the last.", note}
		out = append(out, t)
	}
	return out
}

// depthFailedNote says whether the failed exams' wrong answers are in the
// depth table.
func depthFailedNote(policy string) string {
	if policy == aggregate.FailedExclude {
		return "they are left out (--failed exclude)."
	}
	return "they name no wrong answer, so each of their wrong answers counts as missed at its depth."
}

// failedNote says how the exams that failed before scoring were treated.
func failedNote(policy string) string {
	if policy == aggregate.FailedExclude {
		return "Failed exams (an error from an earlier stage) are left out of the mean (--failed exclude) and counted under \"failed\"."
	}
	return "Failed exams (an error from an earlier stage) score F1 0, as the official runner stores an empty response for them and eval.py scores it; they are in \"exams\" and counted under \"failed\" (--failed exclude leaves them out)."
}
