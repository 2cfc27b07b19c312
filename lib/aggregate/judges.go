package aggregate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stream"
)

// JudgeOf is the judge model a record is for: judge_model, which judge
// writes on every record of a benchmark with an LLM judge (failed ones
// too), else the judge model that decided it (judgement.judge.model:
// records judged before judge_model), else "" (scored by a program or the
// lexical approximation, or failed before judging in a file judged before
// judge_model).
func JudgeOf(rec *record.Record) string {
	if j := rec.String(record.JudgeModelField); j != "" {
		return j
	}
	return rec.JudgeModel()
}

// judges says which judges judged each model's records of a benchmark in a
// run, so that one model judged by two judge models is two models side by
// side (JudgeLabel), each judge's verdicts aggregated apart. A model with
// one judge keeps its name. A record of a benchmark an LLM judges that
// names no judge (a file judged before judge_model: one that failed, or
// one the scorer decided without a call, such as a check whose entry is
// missing) is held back until the input's end (add), then taken as the
// only judge's of its model (resolve): the order of the input does not
// matter. A program's scores name no judge, and are never held.
type judges struct {
	judged map[string]bool        // Registry.Judged
	of     map[answerer][]string  // the judges of the records that name one ("" for a record scored without a judge model)
	runs   map[[2]string][]string // the same, by bench and run
	held   []held
}

// held is a record of a judged benchmark that names no judge, and where it
// was read.
type held struct {
	rec        *record.Record
	run, judge string
	file       string
	line       int
}

func newJudges(judged map[string]bool) *judges {
	return &judges{judged: judged, of: map[answerer][]string{}, runs: map[[2]string][]string{}}
}

// add notes a record read ("" run: this run's own) and reports whether it
// is held back: a record of a judged benchmark that names no judge belongs
// to the judge of its model, known at the input's end.
func (js *judges) add(rec *record.Record, run, file string, line int) bool {
	bench, model, judge := rec.String("bench"), ModelOf(rec), JudgeOf(rec)
	if judge == "" && js.judged[bench] {
		js.held = append(js.held, held{rec: rec, run: run, file: file, line: line})
		return true
	}
	k := answerer{bench: bench, model: model, run: run}
	if !slices.Contains(js.of[k], judge) {
		js.of[k] = append(js.of[k], judge)
		slices.Sort(js.of[k])
	}
	br := [2]string{bench, run}
	if !slices.Contains(js.runs[br], judge) {
		js.runs[br] = append(js.runs[br], judge)
	}
	return false
}

// resolve gives every held record its judge: its model's only judge in its
// benchmark and run (or, for a model with no judged record, such as the
// "unknown" of records that failed before inference, the benchmark's only
// judge in the run; else none). A model with several judges cannot say
// whose the record is: bad input, named with its place.
func (js *judges) resolve() error {
	for i := range js.held {
		h := &js.held[i]
		bench, model := h.rec.String("bench"), ModelOf(h.rec)
		switch of := js.of[answerer{bench: bench, model: model, run: h.run}]; {
		case len(of) == 1:
			h.judge = of[0]
		case len(of) > 1:
			return h.fail(fmt.Errorf("this record names no judge model, and model %q has records of several judges in %s (%s): it cannot be counted under one; "+
				"name each file's judge on its records (\"%s\": judge writes it; for a file judged before, add it, e.g. jq -c '.%s //= \"JUDGE\"'), or aggregate each judge's file apart",
				model, bench, strings.Join(quoted(of), ", "), record.JudgeModelField, record.JudgeModelField))
		default:
			if r := js.runs[[2]string{bench, h.run}]; len(r) == 1 {
				h.judge = r[0]
			}
		}
	}
	return nil
}

// fail is bad input in a held record, named by its place as the record's
// line would have been (exit 3).
func (h *held) fail(err error) error {
	return &stream.LineError{File: h.file, Line: h.line, ID: h.rec.ID(), Err: err}
}

func quoted(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// label names a model's records of a benchmark in a run ("" run: this run's
// own) judged by judge: the model, or model and judge where the model has
// records of several judges there.
func (js *judges) label(bench, model, run, judge string) string {
	if js == nil || len(js.of[answerer{bench: bench, model: model, run: run}]) < 2 {
		return model
	}
	return report.JudgeLabel(model, judge)
}

// name names the rows of one aggregator's result (run, benchmark and judge
// k) apart by judge where their model has several, and has its Counted
// notes read a table's scope by the model's own name.
func (js *judges) name(res *Result, k aggKey) {
	named := map[string]string{} // label → model
	for i := range res.Rows {
		m := res.Rows[i].Model
		if l := js.label(k.bench, m, k.run, k.judge); l != m {
			res.Rows[i].Model, named[l] = l, m
		}
	}
	if len(named) == 0 || res.Counted == nil {
		return
	}
	counted := res.Counted
	res.Counted = func(scope map[string]string) []string {
		if m, ok := named[scope["model"]]; ok {
			scope = maps.Clone(scope)
			scope["model"] = m
		}
		return counted(scope)
	}
}

// nameArms names the arms (and the items --flips compares) as name names
// the rows, and keys them by that name alone.
func (js *judges) nameArms(arms map[armKey]*arm) {
	for _, k := range slices.Collect(maps.Keys(arms)) {
		a := arms[k]
		delete(arms, k)
		a.model = js.label(k.bench, k.model, k.run, k.judge)
		for _, it := range a.items {
			if it.scored != nil {
				it.scored.Model = a.model
			}
		}
		k.model, k.judge = a.model, ""
		arms[k] = a
	}
}
