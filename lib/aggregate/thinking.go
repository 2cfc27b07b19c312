package aggregate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// thinking collects, for the tables of one run and bench, what the
// reasoning rule (lib/reasoning) did to the replies: per model, how many
// held a trace and what the traces cost in tokens, and how many ended
// inside their trace (reasoning_unfinished). The children split-subtasks
// makes of one reply count once, as their parent.
//
// Those unfinished replies are failed records, so each benchmark's own
// aggregator counts them in n_failed, in its own unit (records, checks,
// tasks, …). To count them apart in every row, without asking every
// benchmark, a second aggregator of the benchmark (unfinished) sees only
// the records of such replies, under --failed official: its rows' n_failed
// is, row for row, how many of the first one's failures they are
// (n_reasoning_unfinished).
type thinking struct {
	models     map[string]*modelTraces
	seen       map[string]bool
	records    int         // by parent
	budgets    map[int]int // --reasoning-budget → records (record.BudgetField)
	unfinished Aggregator  // nil until a record of an unfinished reply comes
	factory    Factory
	opt        Options
}

type modelTraces struct {
	replies, traces, unfinished int
	tokens                      int64
	formats, from               map[string]int
}

func newThinking(f Factory, opt Options) *thinking {
	opt.Failed = FailedOfficial // every failure makes its rows and is counted
	return &thinking{models: map[string]*modelTraces{}, seen: map[string]bool{}, budgets: map[int]int{}, factory: f, opt: opt}
}

func (t *thinking) add(rec *record.Record) {
	var resp record.Response
	hasResp := rec.Has("response") && rec.Decode("response", &resp) == nil
	if resp.ReasoningUnfinished && t.factory != nil {
		if t.unfinished == nil {
			t.unfinished = t.factory(t.opt)
		}
		// An error here is the benchmark aggregator's too, which reports it.
		_ = t.unfinished.Add(rec)
	}
	id := sentKey(rec)
	if t.seen[id] {
		return
	}
	t.seen[id] = true
	t.records++
	var budget int
	if rec.Decode(record.BudgetField, &budget) == nil && budget > 0 {
		t.budgets[budget]++
	}
	if !hasResp {
		return
	}
	m := t.models[ModelOf(rec)]
	if m == nil {
		m = &modelTraces{formats: map[string]int{}, from: map[string]int{}}
		t.models[ModelOf(rec)] = m
	}
	m.replies++
	if resp.ReasoningFormat == "" && resp.ReasoningTokens == 0 {
		return
	}
	m.traces++
	m.tokens += int64(resp.ReasoningTokens)
	if resp.ReasoningFormat != "" {
		m.formats[resp.ReasoningFormat]++
	}
	if resp.ReasoningTokensFrom != "" {
		m.from[resp.ReasoningTokensFrom]++
	}
	if resp.ReasoningUnfinished {
		m.unfinished++
	}
}

// count sets n_reasoning_unfinished on every row. It runs before the other
// marks add their dimensions, so the rows are named as the benchmark named
// them.
func (t *thinking) count(rows []report.Row) {
	if t.unfinished == nil {
		return
	}
	res, err := t.unfinished.Result()
	if err != nil {
		return // the benchmark's own Result reports the same error
	}
	n := map[string]int{}
	for _, r := range res.Rows {
		n[rowKey(r)] += r.NFailed
	}
	for i := range rows {
		rows[i].NReasoningUnfinished = n[rowKey(rows[i])]
	}
}

// rowKey names a row by what the benchmark made it of: the model, the
// metric and the dimensions.
func rowKey(r report.Row) string {
	var b strings.Builder
	b.WriteString(r.Model + "\x00" + r.Metric)
	for _, k := range slices.Sorted(maps.Keys(r.Dims)) {
		b.WriteString("\x00" + k + "=" + r.Dims[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Nums)) {
		b.WriteString("\x00" + k + "#" + strconv.FormatFloat(r.Nums[k], 'g', -1, 64))
	}
	return b.String()
}

// mark notes, per model, the traces and what they cost, and the replies
// that ended inside their trace and what to do about it.
func (t *thinking) mark(res *Result) {
	var notes []string
	for _, n := range slices.Sorted(maps.Keys(t.budgets)) {
		notes = append(notes, fmt.Sprintf("Reasoning budget: max_tokens raised by %d tokens for the reasoning trace (expand-templates --reasoning-budget %d) on %d of %d records; the benchmark's own max_tokens are in docs/scripting.md.", n, n, t.budgets[n], t.records))
	}
	for _, model := range slices.Sorted(maps.Keys(t.models)) {
		m := t.models[model]
		if m.traces == 0 {
			continue
		}
		s := fmt.Sprintf("Reasoning (model %s): %d of %d replies held a reasoning trace", model, m.traces, m.replies)
		if len(m.formats) > 0 {
			s += " (" + counts(m.formats) + "), scored on the answer after it (--reasoning strip; response.raw_text keeps the text as received)"
		}
		s += fmt.Sprintf("; %d reasoning tokens, %.1f per reply with a trace", m.tokens, float64(m.tokens)/float64(m.traces))
		if len(m.from) > 0 {
			s += " (counted by: " + counts(m.from) + ")"
		}
		notes = append(notes, s+".")
		if m.unfinished > 0 {
			notes = append(notes, fmt.Sprintf("Reasoning unfinished (model %s): %d of %d replies ended inside their trace, with no answer (error reasoning_unfinished): they are scored as failed records, counted in n_failed and apart in n_reasoning_unfinished. Raise max_tokens for this model (expand-templates --reasoning-budget N, the pipeline scripts' --reasoning-budget N).", model, m.unfinished, m.replies))
		}
	}
	for _, n := range notes {
		res.Note("", n)
	}
}

// counts is "a 3, b 1", by key.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
