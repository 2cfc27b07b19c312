package longgenbench

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
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// The official word-count rule: the average covers outputs with more than
// 40 "#*#" pieces and more than 2000 words (static.ipynb).
const (
	wordRuleBlocks = 40
	wordRuleWords  = 2000
)

// positionBuckets cut the entry position (entry / number) into tenths for
// the adherence-by-position curve.
const positionBuckets = 10

// positionBucket is the tenth of the expected entries an entry lies in: its
// midpoint decides, so short outputs spread evenly.
func positionBucket(entry, number int) int {
	return min(positionBuckets-1, int((float64(entry)-0.5)*positionBuckets/float64(number)))
}

// positionRange labels a tenth: "10-20%".
func positionRange(i int) string {
	return fmt.Sprintf("%d-%d%%", i*100/positionBuckets, (i+1)*100/positionBuckets)
}

// tally counts checks; failed ones (their judge call or their record's
// inference failed) are in failed, and in checks only when they are scored.
// tally counts checks; cutChecks and cutJudged are the checks (and the
// judged ones) of records whose prompt the server cut, so a row counts its
// n_truncated among what its n counts.
type tally struct{ checks, judged, yes, failed, cutChecks, cutJudged int }

func (t *tally) add(verdict string, cut bool) {
	t.checks++
	if verdict != judge.VerdictMissing {
		t.judged++
	}
	if verdict == judge.VerdictYes {
		t.yes++
	}
	if cut {
		t.cutChecks++
		if verdict != judge.VerdictMissing {
			t.cutJudged++
		}
	}
}

// cell is one model × version.
type cell struct {
	model, version string
	parents        map[string]Counts
	all            tally
	byType         map[string]*tally
	byPos          [positionBuckets]tally
	judgeFailed    int            // checks whose judge call failed: excluded from every ratio
	judges         map[string]int // judge labels seen
	excluded       map[string]int // parents whose inference failed, left out (--failed exclude): their checks
	truncated      map[string]bool
}

type aggregator struct {
	opt   aggregate.Options
	cells map[string]*cell
	// failedUnsplit counts records that failed before split-subtasks could
	// make children (e.g. gen or expand errors): per model, no checks known.
	failedUnsplit map[string]int
	// strict and official count the checks whose entries split-subtasks
	// read with --rubric strict and with the official regex.
	strict, official int
	// overLimit holds the outputs (model and parent) the official
	// evaluator cannot read (Counts.OverLimit).
	overLimit map[[2]string]bool
	// seen holds the checks taken (model and id): aggregate-ifs gives
	// each judge's records to an aggregator of their own, so a check seen
	// twice here is one judge's twice, which this table would count twice.
	seen map[[2]string]bool
}

// NewAggregator is the aggregate-ifs factory.
func NewAggregator(opt aggregate.Options) aggregate.Aggregator {
	return &aggregator{opt: opt, cells: map[string]*cell{}, failedUnsplit: map[string]int{}, overLimit: map[[2]string]bool{}, seen: map[[2]string]bool{}}
}

// once refuses a check of a model taken before: one judge's verdict twice
// (aggregate-ifs aggregates each judge's apart), which this table would
// count twice.
func (a *aggregator) once(model, id string) error {
	k := [2]string{model, id}
	if a.seen[k] {
		return fmt.Errorf("check %q of model %q appears twice for one judge (a file read twice, or a failed record naming no judge model beside the same check naming its judge?); it would be counted twice", id, model)
	}
	a.seen[k] = true
	return nil
}

func (a *aggregator) Add(rec *record.Record) error {
	model := aggregate.ModelOf(rec)
	if !rec.Has("parent") {
		if rec.Errored() {
			a.failedUnsplit[model]++
			return nil
		}
		return fmt.Errorf("record %q: longgenbench records are aggregated per check: run split-subtasks and judge first", rec.ID())
	}
	var g CheckGold
	var counts Counts
	var group map[string]string
	if err := rec.Decode("gold", &g); err != nil {
		return err
	}
	if err := rec.Decode("split", &counts); err != nil {
		return err
	}
	if err := rec.Decode("group", &group); err != nil {
		return err
	}
	if err := a.once(model, rec.ID()); err != nil {
		return err
	}
	if limit := max(counts.Number, counts.LastEntry); counts.Number <= 0 || g.Entry < 1 || g.Entry > limit {
		return fmt.Errorf("record %q: check entry %d outside 1..%d", rec.ID(), g.Entry, limit)
	}
	if counts.Entries == "strict" {
		a.strict++
	} else {
		a.official++
	}
	version := group["version"]
	key := model + "\x00" + version
	c := a.cells[key]
	if c == nil {
		c = &cell{model: model, version: version, parents: map[string]Counts{}, byType: map[string]*tally{}, judges: map[string]int{}, excluded: map[string]int{}, truncated: map[string]bool{}}
		for _, t := range CheckTypes {
			c.byType[t] = &tally{}
		}
		a.cells[key] = c
	}
	t := c.byType[g.Check]
	if t == nil {
		return fmt.Errorf("record %q: check type %q: want single, range or periodic", rec.ID(), g.Check)
	}
	pos := &c.byPos[positionBucket(g.Entry, counts.Number)]
	parent := rec.String("parent")
	if aggregate.ServerTruncated(rec) {
		c.truncated[parent] = true
	}
	if counts.OverLimit > 0 {
		a.overLimit[[2]string{model, parent}] = true
	}
	if len(counts.Error) > 0 {
		t.failed++
		c.all.failed++
		pos.failed++
		if a.opt.ExcludeFailed() {
			c.excluded[parent]++
			return nil
		}
	}
	if _, ok := c.parents[parent]; !ok {
		c.parents[parent] = counts
	}
	if rec.Errored() {
		c.judgeFailed++
		t.failed++
		c.all.failed++
		pos.failed++
		return nil
	}
	var j record.Judgement
	if !rec.Has("judgement") {
		return fmt.Errorf("record %q has no judgement: run judge first", rec.ID())
	}
	if err := rec.Decode("judgement", &j); err != nil {
		return err
	}
	switch j.Verdict {
	case judge.VerdictYes, judge.VerdictNo, judge.VerdictMissing:
	default:
		return fmt.Errorf("record %q: verdict %q: want yes, no or missing", rec.ID(), j.Verdict)
	}
	cut := aggregate.ServerTruncated(rec)
	t.add(j.Verdict, cut)
	c.all.add(j.Verdict, cut)
	pos.add(j.Verdict, cut)
	if j.Verdict != judge.VerdictMissing {
		mode, _ := j.Detail["mode"].(string)
		model := ""
		if j.Judge != nil {
			model = j.Judge.Model
		}
		c.judges[Label(mode, model)]++
	}
	return nil
}

func ratio(num, den int, scale float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return scale * float64(num) / float64(den)
}

// Metrics are one model × version's numbers; CR, STIC-1, STIC-2 and wAvg in
// percent, accuracies in [0,1] (as the official accuracy_results.csv).
type Metrics struct {
	Records, Checks, Judged, Missing, JudgeFailed, InferFailed, Truncated int
	Excluded, ServerCut                                                   int // failed records left out (--failed exclude); records whose prompt the server cut
	WordsCut                                                              int // of the WordsN outputs, those whose prompt the server cut
	CR, STIC1, STIC2, WAvg                                                float64
	Accuracy                                                              map[string]float64 // by type, plus "average" (mean of the three)
	Words                                                                 float64
	WordsN                                                                int
}

func (c *cell) metrics() Metrics {
	m := Metrics{Records: len(c.parents), Checks: c.all.checks, Judged: c.all.judged, Missing: c.all.checks - c.all.judged, JudgeFailed: c.judgeFailed, Accuracy: map[string]float64{},
		Excluded: len(c.excluded), ServerCut: len(c.truncated)}
	var crSum, words float64
	// Parents in id order: these are float sums, and the same input must
	// give byte-identical output.
	for _, id := range slices.Sorted(maps.Keys(c.parents)) {
		p := c.parents[id]
		crSum += p.CR()
		if len(p.Error) > 0 {
			m.InferFailed++
		}
		if p.FinishReason == "length" {
			m.Truncated++
		}
		if p.Blocks > wordRuleBlocks && p.Words > wordRuleWords {
			words += float64(p.Words)
			m.WordsN++
			if c.truncated[id] {
				m.WordsCut++
			}
		}
	}
	m.CR = 100 * crSum / float64(len(c.parents))
	m.STIC1 = ratio(c.all.yes, c.all.judged, 100)
	m.STIC2 = ratio(c.all.yes, c.all.checks, 100)
	m.WAvg = m.CR * m.STIC2 / 100
	m.Words = math.NaN()
	if m.WordsN > 0 {
		m.Words = words / float64(m.WordsN)
	}
	var sum float64
	for _, t := range CheckTypes {
		// 0, not NaN, when no check of the type was judged: the official
		// eval.py computes correct / total if total > 0 else 0.
		v := 0.0
		if c.byType[t].judged > 0 {
			v = ratio(c.byType[t].yes, c.byType[t].judged, 1)
		}
		m.Accuracy[t] = v
		sum += v
	}
	m.Accuracy["average"] = sum / float64(len(CheckTypes))
	return m
}

func (c *cell) judgeLabel() string {
	var ls []string
	for l := range c.judges {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	if len(ls) == 0 {
		return "none (every entry missing)"
	}
	return strings.Join(ls, " + ")
}

func (t *tally) merge(o tally) {
	t.checks, t.judged, t.yes, t.failed = t.checks+o.checks, t.judged+o.judged, t.yes+o.yes, t.failed+o.failed
	t.cutChecks, t.cutJudged = t.cutChecks+o.cutChecks, t.cutJudged+o.cutJudged
}

func (c *cell) merge(o *cell) {
	for id, p := range o.parents {
		c.parents[id] = p
	}
	c.all.merge(o.all)
	for t, v := range o.byType {
		c.byType[t].merge(*v)
	}
	for i := range c.byPos {
		c.byPos[i].merge(o.byPos[i])
	}
	c.judgeFailed += o.judgeFailed
	for l, n := range o.judges {
		c.judges[l] += n
	}
	for p, n := range o.excluded {
		c.excluded[p] += n
	}
	for p := range o.truncated {
		c.truncated[p] = true
	}
}

// attributeUnknown gives records without a model (an error from a stage
// before infer-batch passes through it unanswered, so no model is written) to
// the model of their version when there is exactly one; otherwise they stay
// "unknown".
func (a *aggregator) attributeUnknown() (notes []string) {
	for key, u := range a.cells {
		if u.model != "unknown" {
			continue
		}
		var only *cell
		n := 0
		for _, c := range a.cells {
			if c.version == u.version && c.model != "unknown" {
				only, n = c, n+1
			}
		}
		if n == 1 {
			only.merge(u)
			delete(a.cells, key)
			notes = append(notes, fmt.Sprintf("%s version: %d records without a model (they failed before inference) are counted for %s, the only model of this version.", u.version, len(u.parents), only.model))
		}
	}
	sort.Strings(notes)
	return notes
}

func (a *aggregator) Result() (*aggregate.Result, error) {
	attributed := a.attributeUnknown()
	keys := make([]string, 0, len(a.cells))
	for k := range a.cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	res := &aggregate.Result{}
	for _, k := range keys {
		c := a.cells[k]
		m := c.metrics()
		jl := c.judgeLabel()
		dims := func(extra ...string) map[string]string {
			out := map[string]string{"version": c.version, "judge": jl}
			for i := 0; i+1 < len(extra); i += 2 {
				out[extra[i]] = extra[i+1]
			}
			return out
		}
		// Record-level rows count failed records, check-level rows failed
		// checks (a failed judge call, or a record whose inference failed).
		failedRecs := m.InferFailed + m.Excluded
		// n_truncated counts among what n counts: records, checks or
		// judged checks of the records whose prompt the server cut.
		row := func(metric, unit string, v float64, n, failed, cut int, nums map[string]float64, extra ...string) {
			res.Rows = append(res.Rows, report.Row{Bench: Bench, Model: c.model, Metric: metric, Dims: dims(extra...), Nums: nums, Value: v, Unit: unit, N: n, NFailed: failed, NTruncated: cut})
		}
		row("CR", "percent", m.CR, m.Records, failedRecs, m.ServerCut, nil)
		row("STIC-1", "percent", m.STIC1, m.Judged, c.all.failed, c.all.cutJudged, nil)
		row("STIC-2", "percent", m.STIC2, m.Checks, c.all.failed, c.all.cutChecks, nil)
		row("wAvg", "percent", m.WAvg, m.Records, failedRecs, m.ServerCut, nil)
		row("words", "words", m.Words, m.WordsN, failedRecs, m.WordsCut, nil)
		row("cut_off", "count", float64(m.Truncated), m.Records, failedRecs, m.ServerCut, nil)
		row("judge_failed", "count", float64(m.JudgeFailed), m.Checks, c.all.failed, c.all.cutChecks, nil)
		for _, t := range append(append([]string{}, CheckTypes...), "average") {
			n, failed, cut := m.Judged, c.all.failed, c.all.cutJudged
			if t != "average" {
				n, failed, cut = c.byType[t].judged, c.byType[t].failed, c.byType[t].cutJudged
			}
			row("accuracy", "ratio", m.Accuracy[t], n, failed, cut, nil, "type", t)
		}
		for i, t := range c.byPos {
			label := positionRange(i)
			pos := map[string]float64{"position": float64(i) / positionBuckets}
			row("accuracy", "ratio", ratio(t.yes, t.judged, 1), t.judged, t.failed, t.cutJudged, pos, "type", "all", "position_range", label)
			row("present", "ratio", ratio(t.judged, t.checks, 1), t.checks, t.failed, t.cutChecks, pos, "type", "all", "position_range", label)
		}
	}
	note := func(s string) { res.Note(titleMain, s) }
	if a.opt.ExcludeFailed() {
		note("infer failed: records whose inference ended in an error; --failed exclude leaves them and their checks out of every number.")
	} else {
		note("infer failed: records whose inference ended in an error; they are scored as empty outputs (CR 0, every check missing, so STIC-2 counts their checks as failed), as the official evaluator scores an empty generation.")
	}
	switch {
	case a.strict > 0 && a.official > 0:
		note(fmt.Sprintf("entries: %d checks were split with split-subtasks --rubric strict and %d with the official regex; CR and STIC mix the two readings.", a.strict, a.official))
	case a.strict > 0:
		note("entries: read with split-subtasks --rubric strict (the official regex's quirks fixed, docs/longgenbench.md), so CR and STIC can differ from the official evaluator's.")
	}
	if n := len(a.overLimit); n > 0 {
		note(fmt.Sprintf("Outputs with a piece whose entry number has more than %d digits: %d. The official eval.py stops on such an output with ValueError (int() on Python 3.10.7 and later), so it has no official score; here the piece claims no entry, as it would without that limit.", pystr.IntMaxStrDigits, n))
	}
	for _, s := range attributed {
		note(s)
	}
	models := make([]string, 0, len(a.failedUnsplit))
	for m := range a.failedUnsplit {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		note(fmt.Sprintf("%s: %d records failed before split-subtasks and have no checks; they are not in the table.", m, a.failedUnsplit[m]))
	}
	return res, nil
}

// The tables' titles; the aggregator's notes name the first.
const (
	titleMain     = "LongGenBench: completion and instruction adherence (CR, STIC-1, STIC-2, wAvg in %)"
	titleType     = "LongGenBench: accuracy per instruction type (yes / judged checks; missing entries excluded, as official)"
	titlePosition = "LongGenBench: adherence by entry position (accuracy = yes / judged; present = judged / checks)"
)

// Tables lays the rows out as the paper's table of CR, STIC-1, STIC-2 and
// wAvg, with the accuracy per check type and by entry position, a line per
// model and version.
func Tables(rows []report.Row, opt aggregate.TableOptions) []report.Table {
	look := report.NewLookup(rows)
	f := func(v float64) string { return report.Fmt(v, opt.Decimals) }
	type cellOf struct{ model, version string }
	var cells []cellOf
	for _, r := range report.Match(rows, "CR", nil) {
		if c := (cellOf{r.Model, r.Dims["version"]}); !slices.Contains(cells, c) {
			cells = append(cells, c)
		}
	}
	slices.SortFunc(cells, func(x, y cellOf) int {
		return cmp.Or(strings.Compare(x.model, y.model), strings.Compare(x.version, y.version))
	})
	main := report.Table{Title: titleMain,
		Columns: []string{"model", "version", "judge", "records", "CR", "STIC-1", "STIC-2", "words", "wAvg", "checks", "missing", "infer failed", "cut off", "judge failed"}}
	acc := report.Table{Title: titleType, Columns: []string{"model", "version", "single", "range", "periodic", "average", "judged", "failed"}}
	pos := report.Table{Title: titlePosition, Columns: []string{"model", "version", "position", "checks", "present", "accuracy", "failed"}}
	whole := func(v float64) string { return report.Fmt(v, 0) } // words
	lexical := false
	for _, c := range cells {
		get := func(metric string, dims ...string) report.Row {
			r, _ := look.Get(c.model, metric, append([]string{"version", c.version}, dims...)...)
			return r
		}
		cr, s1, s2 := get("CR"), get("STIC-1"), get("STIC-2")
		jl := cr.Dims["judge"]
		lexical = lexical || strings.HasPrefix(jl, "lexical") || strings.Contains(jl, "+ lexical")
		main.Rows = append(main.Rows, []string{c.model, c.version, jl, strconv.Itoa(cr.N), report.Cell(cr, f), report.Cell(s1, f), report.Cell(s2, f), report.Cell(get("words"), whole), report.Cell(get("wAvg"), f),
			strconv.Itoa(s2.N), strconv.Itoa(s2.N - s1.N), strconv.Itoa(cr.NFailed), report.Fmt(get("cut_off").Value, 0), report.Fmt(get("judge_failed").Value, 0)})
		line := []string{c.model, c.version}
		for _, t := range append(append([]string{}, CheckTypes...), "average") {
			line = append(line, report.Cell(get("accuracy", "type", t), f))
		}
		avg := get("accuracy", "type", "average")
		acc.Rows = append(acc.Rows, append(line, strconv.Itoa(avg.N), strconv.Itoa(avg.NFailed)))
		for _, a := range look.All(c.model, "accuracy", "version", c.version, "type", "all", "position", "*") {
			label := a.Dims["position_range"]
			p := get("present", "type", "all", "position_range", label)
			pos.Rows = append(pos.Rows, []string{c.model, c.version, label, strconv.Itoa(p.N), report.Cell(p, f), report.Cell(a, f), strconv.Itoa(a.NFailed)})
		}
	}
	main.Notes = []string{
		"CR: share of the expected entries present, averaged over records. STIC-1: yes / checks whose entry exists. STIC-2: yes / all checks (a missing entry fails its check). wAvg = CR × STIC-2.",
		fmt.Sprintf("words: mean word count of outputs with more than %d '#*#' pieces and more than %d words (the official rule); nan when none qualifies.", wordRuleBlocks, wordRuleWords),
		"cut off: responses that stopped at max_tokens, scored as far as they go. judge failed: checks whose judge call failed; they are left out of every ratio (the official judge runs offline in vLLM and never fails).",
	}
	if lexical {
		main.Notes = append(main.Notes, "judge lexical: an offline approximation (every content word of the event present in the entry), not the paper's LLM judge; its numbers are not comparable with published ones.")
	}
	return []report.Table{main, acc, pos}
}
