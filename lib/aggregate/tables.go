package aggregate

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/report"
)

// layOut makes the tables of every benchmark of the rows, in order (then by
// name):
// its Tabler over all its rows, whatever run they came from, so the models
// of the input stand side by side and the runs of one model are named apart
// (report.ApartByRun). Each result's notes go under its benchmark's tables;
// when the tables hold several runs (or judges), each note names the runs
// (judges) it is about. runs[i] and judges[i] are the run and judge of
// results[i] (none for imported rows).
func layOut(tablers map[string]Tabler, order []string, rows []report.Row, results []*Result, runs, judges []string, opt TableOptions) []report.Table {
	byBench := map[string][]report.Row{}
	for _, r := range rows {
		byBench[r.Bench] = append(byBench[r.Bench], r)
	}
	var out []report.Table
	for _, b := range inOrder(order, byBench) {
		tabler := tablers[b]
		if tabler == nil {
			continue
		}
		labelled := report.ApartByRun(byBench[b])
		tables := tabler(labelled, opt)
		notes := notesOf(b, results, runs, judges, byBench[b], labelled)
		notes.rows = labelled
		// Under each table: its own notes, those of its rows, then those of
		// every table of the benchmark.
		fromRows := rowNotes(labelled)
		ci := ciNote(labelled, opt)
		for i := range tables {
			add := func(s string) {
				if s != "" && !slices.Contains(tables[i].Notes, s) {
					tables[i].Notes = append(tables[i].Notes, s)
				}
			}
			for _, s := range notes.titled(tables[i].Title) {
				add(s)
			}
			for _, s := range fromRows {
				add(s)
			}
			add(ci)
			for _, s := range notes.counted(tables[i].Scope) {
				add(s)
			}
			for _, s := range notes.titled("") {
				add(s)
			}
		}
		out = append(out, tables...)
	}
	return out
}

// benchNotes are the notes of one benchmark's results, for its tables.
type benchNotes struct {
	results []*Result
	runs    []string // of each result
	judges  []string // of each result
	// The notes by table title, in order, and the results that gave each.
	order []note
	from  map[note][]int
	// named is who each model of the tables is when a model named apart by
	// run is one run's (report.ApartByRun).
	named map[string]who
	rows  []report.Row // the benchmark's, models named apart by run
}

type note struct{ title, text string }

type who struct{ model, run string }

// notesOf gathers the notes of the results of bench b; rows are its rows,
// labelled the same named apart by run.
func notesOf(b string, results []*Result, runs, judges []string, rows, labelled []report.Row) *benchNotes {
	n := &benchNotes{from: map[note][]int{}, named: map[string]who{}}
	for i, res := range results {
		if len(res.Rows) == 0 || res.Rows[0].Bench != b {
			continue
		}
		run, judge := "", ""
		if i < len(runs) {
			run = runs[i]
		}
		if i < len(judges) {
			judge = judges[i]
		}
		n.results, n.runs, n.judges = append(n.results, res), append(n.runs, run), append(n.judges, judge)
		for _, title := range keys(res.Notes) {
			for _, text := range res.Notes[title] {
				x := note{title, text}
				if _, ok := n.from[x]; !ok {
					n.order = append(n.order, x)
				}
				n.from[x] = append(n.from[x], len(n.results)-1)
			}
		}
	}
	for i, r := range labelled {
		if r.Model != rows[i].Model {
			n.named[r.Model] = who{rows[i].Model, r.Run}
		}
	}
	return n
}

// titled are the notes for the table titled title ("" for every table),
// each naming its runs when the tables hold several.
func (n *benchNotes) titled(title string) []string {
	var out []string
	for _, x := range n.order {
		if x.title == title {
			out = append(out, n.prefix(n.from[x]...)+x.text)
		}
	}
	return out
}

// prefix names the runs, and the judges, of the results whose note
// follows, where the tables hold several: "Run a, b: ", "Judge j: ",
// "Run a, judge j: ".
func (n *benchNotes) prefix(results ...int) string {
	var parts []string
	for _, by := range []struct {
		what string
		of   []string
	}{{"run", n.runs}, {"judge", n.judges}} {
		if len(distinct(by.of)) < 2 {
			continue
		}
		var of []string
		for _, i := range results {
			of = append(of, cmp.Or(by.of[i], "none"))
		}
		parts = append(parts, by.what+" "+strings.Join(distinct(of), ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, ", ")
	return strings.ToUpper(s[:1]) + s[1:] + ": "
}

// distinct are xs without repeats, in order.
func distinct(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// counted are the notes that count a table's own records (its scope), each
// run's (Result.Counted); for rows read back (--import rows), whose records
// are gone, what their cut_check says where a cut could not have been seen.
func (n *benchNotes) counted(scope map[string]string) []string {
	if !slices.ContainsFunc(n.results, func(r *Result) bool { return r.Counted != nil }) {
		return uncheckedNotes(n.rows, scope["model"])
	}
	var out []string
	for i, res := range n.results {
		if res.Counted == nil {
			continue
		}
		sc := scope
		if w, ok := n.named[scope["model"]]; ok {
			if w.run != n.runs[i] {
				continue
			}
			sc = maps.Clone(scope)
			sc["model"] = w.model
		}
		for _, s := range res.Counted(sc) {
			out = append(out, n.prefix(i)+s)
		}
	}
	return out
}

// Lay lays out one result of one benchmark with its notes, as aggregate-ifs
// does (for a benchmark's tests and its importers' callers).
func Lay(t Tabler, res *Result, opt TableOptions) []report.Table {
	if len(res.Rows) == 0 {
		return nil
	}
	return layOut(map[string]Tabler{res.Rows[0].Bench: t}, nil, res.Rows, []*Result{res}, nil, nil, opt)
}

// rowNoted are the dimensions of the rows that the tables say in a note:
// where the items came from, that llm-sim answered, which shards were
// missing (marks, partialSets).
var rowNoted = []struct {
	dim  string
	note func(value string) string
}{
	{"source", func(v string) string { return "Items: " + v + "." }},
	{"simulated", func(string) string { return SimulatorNote }},
	{"shards", func(v string) string {
		return "Partial: computed from " + v + " (--allow-partial); the missing shards' records are not counted."
	}},
}

// rowNotes are the notes the rows' dimensions call for (rowNoted), the same
// for rows made now and rows read back (--import rows). A note that holds
// for some of the models only names them.
func rowNotes(rows []report.Row) []string {
	all := report.Models(rows)
	var out []string
	for _, d := range rowNoted {
		models := map[string][]string{}
		var values []string
		for _, r := range rows {
			v, ok := r.Dims[d.dim]
			if !ok || v == "" {
				continue
			}
			if !slices.Contains(values, v) {
				values = append(values, v)
			}
			if !slices.Contains(models[v], r.Model) {
				models[v] = append(models[v], r.Model)
			}
		}
		slices.Sort(values)
		for _, v := range values {
			ms := models[v]
			slices.Sort(ms)
			if len(values) == 1 && slices.Equal(ms, all) {
				out = append(out, d.note(v))
				continue
			}
			out = append(out, strings.Join(ms, ", ")+": "+d.note(v))
		}
	}
	return out
}

// uncheckedNotes say, for rows read back, which models' records could not
// have shown a cut (their cut_check is neither exact nor empty), those of
// model only when it is set. A note that holds for some of the models
// names them, as rowNotes do.
func uncheckedNotes(rows []report.Row, model string) []string {
	models := map[string][]string{} // cut_check → models
	var all []string
	for _, r := range rows {
		if model != "" && r.Model != model {
			continue
		}
		if !slices.Contains(all, r.Model) {
			all = append(all, r.Model)
		}
		if r.CutCheck == "" || r.CutCheck == string(cuts.Exact) || slices.Contains(models[r.CutCheck], r.Model) {
			continue
		}
		models[r.CutCheck] = append(models[r.CutCheck], r.Model)
	}
	var out []string
	for _, check := range keys(models) {
		ms := models[check]
		slices.Sort(ms)
		note := "Server-truncated: " + check + " (the rows' cut_check): a prompt the server cut may be among the records behind them."
		if len(ms) < len(all) {
			note = strings.Join(ms, ", ") + ": " + note
		}
		out = append(out, note)
	}
	return out
}
