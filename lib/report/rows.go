package report

import (
	"slices"
	"strconv"
)

// Match keeps the rows of a metric whose dims equal want; a want value of
// "*" asks for the dim to be present with any value but "all", "-" for it
// to be absent. A numeric dimension matches its number's shortest text.
func Match(rows []Row, metric string, want map[string]string) []Row {
	var out []Row
	for _, r := range rows {
		if r.Metric == metric && r.matches(want) {
			out = append(out, r)
		}
	}
	return out
}

func (r Row) matches(want map[string]string) bool {
	for k, v := range want {
		got, ok := r.Dims[k]
		if !ok && r.Nums != nil {
			if x, has := r.Nums[k]; has {
				got, ok = strconv.FormatFloat(x, 'f', -1, 64), true
			}
		}
		if !ok && v == "all" {
			// A row without the dimension is over all its values: the
			// aggregators write "all" for some (length) and leave others
			// out (LongGenBench's position on the rows per check type).
			got, ok = "all", true
		}
		switch {
		case v == "*" && (!ok || got == "all"):
			return false
		case v == "-" && ok:
			return false
		case v != "*" && v != "-" && got != v:
			return false
		}
	}
	return true
}

// Models lists the models of rows, sorted.
func Models(rows []Row) []string {
	var ms []string
	for _, r := range rows {
		if !slices.Contains(ms, r.Model) {
			ms = append(ms, r.Model)
		}
	}
	slices.Sort(ms)
	return ms
}

// ApartByRun names a model by model and run where the rows hold several runs
// of it (a lake read whole, --import rows of several days), so that each run
// of a model is its own line of a table and its own series of a figure,
// rather than two runs' numbers under one name. Rows of a model with one run
// keep its name, so several models of one or more runs stand side by side.
func ApartByRun(rows []Row) []Row {
	runs := map[string][]string{}
	for _, r := range rows {
		if !slices.Contains(runs[r.Model], r.Run) {
			runs[r.Model] = append(runs[r.Model], r.Run)
		}
	}
	var out []Row
	for i, r := range rows {
		if len(runs[r.Model]) < 2 {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i].Model = RunLabel(r.Model, r.Run)
	}
	if out == nil {
		return rows
	}
	return out
}

// RunLabel is how a table or figure names one run of a model.
func RunLabel(model, run string) string { return apart(model, "run", run) }

// JudgeLabel is how the rows, tables and figures name one model's records
// judged by one judge model, where the model's records of a benchmark were
// judged by several (lib/aggregate): each judge's verdicts are a model of
// their own, side by side, as runs are.
func JudgeLabel(model, judge string) string {
	if judge == "" {
		judge = "none"
	}
	return apart(model, "judge", judge)
}

// apart names a model's rows set apart from its others by what: the one
// form of RunLabel and JudgeLabel.
func apart(model, what, value string) string { return model + " (" + what + " " + value + ")" }

// Lookup finds rows by model, metric and dimensions; it indexes the rows
// once, so a table of many cells does not scan them all for each.
type Lookup struct {
	by map[[2]string][]Row
}

// NewLookup indexes rows by model and metric.
func NewLookup(rows []Row) Lookup {
	l := Lookup{by: map[[2]string][]Row{}}
	for _, r := range rows {
		k := [2]string{r.Model, r.Metric}
		l.by[k] = append(l.by[k], r)
	}
	return l
}

// Get is the first row of model and metric whose dims match want (as Match
// reads it), given as name, value pairs.
func (l Lookup) Get(model, metric string, want ...string) (Row, bool) {
	w := make(map[string]string, len(want)/2)
	for i := 0; i+1 < len(want); i += 2 {
		w[want[i]] = want[i+1]
	}
	for _, r := range l.by[[2]string{model, metric}] {
		if r.matches(w) {
			return r, true
		}
	}
	return Row{}, false
}

// All are the rows of model and metric whose dims match want.
func (l Lookup) All(model, metric string, want ...string) []Row {
	w := make(map[string]string, len(want)/2)
	for i := 0; i+1 < len(want); i += 2 {
		w[want[i]] = want[i+1]
	}
	var out []Row
	for _, r := range l.by[[2]string{model, metric}] {
		if r.matches(w) {
			out = append(out, r)
		}
	}
	return out
}

// Cell prints a row's value with f, as a table cell, and its interval.
func Cell(r Row, f func(float64) string) string {
	return f(r.Value) + Interval(r, f)
}

// Interval is what a table cell adds to a row's value for its confidence
// interval, printed with f: " [low, high]", " [too few]" when the value
// stands on too few units for one, or nothing when none was computed.
func Interval(r Row, f func(float64) string) string {
	switch {
	case r.CILow != nil && r.CIHigh != nil:
		return " [" + f(*r.CILow) + ", " + f(*r.CIHigh) + "]"
	case r.CIMethod == TooFewUnits:
		return " [too few]"
	}
	return ""
}
