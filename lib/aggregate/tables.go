package aggregate

import (
	"maps"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/report"
)

// layOut makes the tables of every benchmark of the rows, in name order:
// its Tabler over all its rows, whatever run they came from, so the models
// of the input stand side by side and the runs of one model are named apart
// (report.ApartByRun). Each result's notes go under its benchmark's tables;
// when the tables hold several runs, each note names the runs it is about.
// runs[i] is the run of results[i] (none for imported rows).
func layOut(tablers map[string]Tabler, rows []report.Row, results []*Result, runs []string, opt TableOptions) []report.Table {
	byBench := map[string][]report.Row{}
	for _, r := range rows {
		byBench[r.Bench] = append(byBench[r.Bench], r)
	}
	var out []report.Table
	for _, b := range keys(byBench) {
		tabler := tablers[b]
		if tabler == nil {
			continue
		}
		labelled := report.ApartByRun(byBench[b])
		tables := tabler(labelled, opt)
		// The notes of each run of the benchmark, by table title.
		type note struct {
			title, text string
		}
		var order []note
		runsOf := map[note][]string{}
		var benchRuns []string
		for i, res := range results {
			if len(res.Rows) == 0 || res.Rows[0].Bench != b {
				continue
			}
			run := ""
			if i < len(runs) {
				run = runs[i]
			}
			benchRuns = append(benchRuns, run)
			for _, title := range keys(res.Notes) {
				for _, text := range res.Notes[title] {
					n := note{title, text}
					if _, ok := runsOf[n]; !ok {
						order = append(order, n)
					}
					runsOf[n] = append(runsOf[n], run)
				}
			}
		}
		text := func(n note) string {
			if len(benchRuns) > 1 {
				return "Run " + strings.Join(runsOf[n], ", ") + ": " + n.text
			}
			return n.text
		}
		// Who each model of the tables is: a model named apart by run is
		// one run's (report.ApartByRun).
		type who struct{ model, run string }
		named := map[string]who{}
		for i, r := range labelled {
			if r.Model != byBench[b][i].Model {
				named[r.Model] = who{byBench[b][i].Model, r.Run}
			}
		}
		// counted are the notes that count a table's own records, each
		// run's (Result.Counted).
		counted := func(scope map[string]string) []string {
			var out []string
			for i, res := range results {
				if res.Counted == nil || len(res.Rows) == 0 || res.Rows[0].Bench != b {
					continue
				}
				run := ""
				if i < len(runs) {
					run = runs[i]
				}
				sc := scope
				if w, ok := named[scope["model"]]; ok {
					if w.run != run {
						continue
					}
					sc = maps.Clone(scope)
					sc["model"] = w.model
				}
				for _, s := range res.Counted(sc) {
					if len(benchRuns) > 1 {
						s = "Run " + run + ": " + s
					}
					out = append(out, s)
				}
			}
			return out
		}
		// Under each table: its own notes, those of its rows, then those of
		// every table of the benchmark.
		fromRows := rowNotes(labelled)
		for i := range tables {
			add := func(s string) {
				if !slices.Contains(tables[i].Notes, s) {
					tables[i].Notes = append(tables[i].Notes, s)
				}
			}
			for _, n := range order {
				if n.title == tables[i].Title {
					add(text(n))
				}
			}
			for _, s := range fromRows {
				add(s)
			}
			if n := ciNote(labelled, opt); n != "" {
				add(n)
			}
			for _, s := range counted(tables[i].Scope) {
				add(s)
			}
			for _, n := range order {
				if n.title == "" {
					add(text(n))
				}
			}
		}
		out = append(out, tables...)
	}
	return out
}

// Lay lays out one result of one benchmark with its notes, as aggregate-ifs
// does (for a benchmark's tests and its importers' callers).
func Lay(t Tabler, res *Result, opt TableOptions) []report.Table {
	if len(res.Rows) == 0 {
		return nil
	}
	return layOut(map[string]Tabler{res.Rows[0].Bench: t}, res.Rows, []*Result{res}, nil, opt)
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
