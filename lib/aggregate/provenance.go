package aggregate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// Provenance says where each answerer's data came from: for every
// benchmark, model and run, from the records (judge model and prompt,
// tokenizer, counts) and the rows (ifkit version, date, items' source,
// llm-sim). It is one table, which report.md prints first and the HTML
// page shows at its top, so the two say the same; About adds its part to
// the figures' captions.
type Provenance struct {
	by            map[answerer]*origin
	judged        *judges // who judged each model's records (nameJudges)
	own           string  // this run's id, once known
	version, date string  // of this aggregate-ifs, which stamps the rows of records
}

// answerer is one model's (or one run's) answers to one benchmark: a line
// of the table; while the records are read, one judge's (nameJudges names
// a model's judges apart in its model and clears it).
type answerer struct{ bench, model, run, judge string }

// origin is what the records say about where an answerer's data came from.
type origin struct {
	records, failed, unfinished          int
	cuts                                 checks // of the records, as the tables count them of prompts
	sources, judges, prompts, tokenizers []string
	named                                []string // judge_model: the judges the records were sent to
	simulated                            bool
}

func NewProvenance() *Provenance { return &Provenance{by: map[answerer]*origin{}} }

func addTo(xs *[]string, x string) {
	if x != "" && !slices.Contains(*xs, x) {
		*xs = append(*xs, x)
	}
}

// Add notes one record read ("" run: this run's own), left out of the
// tables or not: the table counts what was read.
func (p *Provenance) Add(rec *record.Record, run string) {
	k := answerer{rec.String("bench"), ModelOf(rec), run, JudgeOf(rec)}
	o := p.by[k]
	if o == nil {
		o = &origin{}
		p.by[k] = o
	}
	o.records++
	var v struct {
		Response *struct {
			Tokenizer  string `json:"tokenizer"`
			Unfinished bool   `json:"reasoning_unfinished"`
		} `json:"response"`
		Judgement *struct {
			Judge *struct {
				Model string `json:"model"`
			} `json:"judge"`
			Detail struct {
				Prompt string `json:"prompt"`
			} `json:"detail"`
		} `json:"judgement"`
		Error *struct {
			Kind string `json:"kind"`
		} `json:"error"`
	}
	_ = rec.Decode("response", &v.Response)
	_ = rec.Decode("judgement", &v.Judgement)
	_ = rec.Decode("error", &v.Error)
	if rec.Errored() {
		o.failed++
	}
	c := &o.cuts
	c.n++
	check, margin := CutCheck(rec)
	cut := ServerTruncated(rec)
	if check != "" || cut {
		c.replies++
	}
	switch {
	case cut:
		c.cut++
	case check == cuts.Unchecked:
		c.unchecked++
	case check == cuts.Calibrated:
		c.calibrated++
		c.margin = max(c.margin, margin)
	}
	if v.Response != nil && v.Response.Unfinished || v.Error != nil && v.Error.Kind == "reasoning_unfinished" {
		o.unfinished++
	}
	addTo(&o.sources, rec.String(record.SourceField))
	if j := v.Judgement; j != nil && j.Judge != nil {
		addTo(&o.judges, j.Judge.Model)
		addTo(&o.prompts, j.Detail.Prompt)
	}
	// A record the judge did not decide (it failed) still names the judge
	// it was for: a line whose every record failed says whose it is.
	addTo(&o.named, rec.String(record.JudgeModelField))
	if v.Response != nil {
		addTo(&o.tokenizers, v.Response.Tokenizer)
	}
	o.simulated = o.simulated || fromSimulator(rec)
}

// nameJudges names the lines of a model whose records several judges
// judged apart, as the rows are named (judges.label); a failed record that
// names no judge is its model's only judge's.
func (p *Provenance) nameJudges(js *judges) {
	p.judged = js
	for _, k := range slices.Collect(maps.Keys(p.by)) {
		o := p.by[k]
		delete(p.by, k)
		k.model, k.judge = js.label(k.bench, k.model, k.run, k.judge), ""
		if had := p.by[k]; had != nil {
			had.merge(o)
			continue
		}
		p.by[k] = o
	}
}

// Label is what the tables call a model's records of a benchmark in a run
// ("" run: this run's own) judged by judge (JudgeOf): the model, or model
// and judge where several judged its records; the page's explorer names its
// items so.
func (p *Provenance) Label(bench, model, run, judge string) string {
	return p.judged.label(bench, model, run, judge)
}

// judgesOr are the judges that decided the records (as their server named
// them), else those the records were sent to (judge_model: every one
// failed).
func (o *origin) judgesOr() []string {
	if len(o.judges) > 0 {
		return o.judges
	}
	return o.named
}

// merge adds another origin's records to o.
func (o *origin) merge(x *origin) {
	o.records, o.failed, o.unfinished = o.records+x.records, o.failed+x.failed, o.unfinished+x.unfinished
	c := &o.cuts
	c.n, c.replies, c.cut, c.unchecked, c.calibrated = c.n+x.cuts.n, c.replies+x.cuts.replies, c.cut+x.cuts.cut, c.unchecked+x.cuts.unchecked, c.calibrated+x.cuts.calibrated
	c.margin = max(c.margin, x.cuts.margin)
	for _, s := range x.sources {
		addTo(&o.sources, s)
	}
	for _, s := range x.judges {
		addTo(&o.judges, s)
	}
	for _, s := range x.named {
		addTo(&o.named, s)
	}
	for _, s := range x.prompts {
		addTo(&o.prompts, s)
	}
	for _, s := range x.tokenizers {
		addTo(&o.tokenizers, s)
	}
	o.simulated = o.simulated || x.simulated
}

// Fill names this run's own records by its id, and says which ifkit
// aggregated the records, and when (RFC 3339), as the rows say.
func (p *Provenance) Fill(run, version, created string) {
	p.nameJudges(p.judged) // (records read without readRecords: by model alone)
	p.own, p.version, p.date = run, version, strings.SplitN(created, "T", 2)[0]
	for k, o := range p.by {
		if k.run == "" {
			delete(p.by, k)
			k.run = run
			p.by[k] = o
		}
	}
}

// Run is this run's id: the run of the records read from plain files.
func (p *Provenance) Run() string { return p.own }

// tokenizerText says what counted the prompt tokens that truncation
// detection compares with the server's count (docs/records.md, response).
func tokenizerText(ts []string) string {
	var out []string
	for _, t := range ts {
		switch {
		case t == "server":
			out = append(out, "the server's tokenize API (exact)")
		case strings.HasPrefix(t, "hf:"):
			out = append(out, t+" (exact)")
		case strings.HasSuffix(t, "~"):
			out = append(out, t+" (an estimate)")
		default:
			out = append(out, t)
		}
	}
	return strings.Join(out, ", ")
}

func judgeText(judges, prompts []string) string {
	if len(judges) == 0 {
		return ""
	}
	s := strings.Join(judges, ", ")
	if len(prompts) > 0 {
		s += " (judge prompt " + strings.Join(prompts, ", ") + ")"
	}
	return s
}

// About is what the records add, for one model's data of a benchmark, to a
// figure's caption: its judge and what counted its prompt tokens.
func (p *Provenance) About(bench, model string) string {
	var judges, prompts, tokenizers []string
	for k, o := range p.by {
		if k.bench != bench || k.model != model {
			continue
		}
		for _, j := range o.judgesOr() {
			addTo(&judges, j)
		}
		for _, q := range o.prompts {
			addTo(&prompts, q)
		}
		for _, t := range o.tokenizers {
			addTo(&tokenizers, t)
		}
	}
	slices.Sort(judges)
	slices.Sort(prompts)
	slices.Sort(tokenizers)
	var parts []string
	if j := judgeText(judges, prompts); j != "" {
		parts = append(parts, "judge "+j)
	}
	if len(tokenizers) > 0 {
		parts = append(parts, "prompt tokens counted by "+tokenizerText(tokenizers))
	}
	return strings.Join(parts, "; ")
}

// ProvenanceColumns are the table's columns.
var ProvenanceColumns = []string{"model", "benchmark", "run", "ifkit", "aggregated", "items", "records", "judge", "prompt tokens counted by", "replies from"}

// Table is the provenance of rows and the records read: a line per model,
// benchmark and run, whether the rows came from the records or from
// earlier runs' rows (--import rows; then what only records say is "–").
func (p *Provenance) Table(rows []report.Row) report.Table {
	type fromRows struct {
		versions, dates, sources []string
		simulated                bool
	}
	lines := map[answerer]*fromRows{}
	for _, r := range rows {
		if strings.HasSuffix(r.Model, " (published)") {
			continue
		}
		k := answerer{bench: r.Bench, model: r.Model, run: r.Run}
		l := lines[k]
		if l == nil {
			l = &fromRows{}
			lines[k] = l
		}
		addTo(&l.versions, r.Version)
		addTo(&l.dates, strings.SplitN(r.Created, "T", 2)[0])
		addTo(&l.sources, r.Dims["source"])
		l.simulated = l.simulated || r.Dims["simulated"] == "true"
	}
	for k := range p.by {
		if lines[k] == nil { // records that made no row (all left out)
			lines[k] = &fromRows{}
			addTo(&lines[k].versions, p.version)
			addTo(&lines[k].dates, p.date)
		}
	}
	keys := make([]answerer, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b answerer) int {
		return cmp.Or(strings.Compare(a.model, b.model), strings.Compare(a.run, b.run), strings.Compare(a.bench, b.bench))
	})
	t := report.Table{Title: "Where the data came from", Columns: ProvenanceColumns}
	rowsOnly := false
	for _, k := range keys {
		l, o := lines[k], p.by[k]
		sources := slices.Clone(l.sources)
		sim := l.simulated
		records, judge, tok := "–", "–", "–"
		rowsOnly = rowsOnly || o == nil
		if o != nil {
			// Sorted: the same records in another order give the same table.
			o.judges = o.judgesOr()
			slices.Sort(o.judges)
			slices.Sort(o.prompts)
			slices.Sort(o.tokenizers)
			for _, s := range o.sources {
				addTo(&sources, s)
			}
			sim = sim || o.simulated
			records = fmt.Sprintf("%d: %d failed, %s, %d reasoning unfinished", o.records, o.failed, report.CutPhrase(o.cuts.cut, o.cuts.label()), o.unfinished)
			if j := judgeText(o.judges, o.prompts); j != "" {
				judge = j
			} else if o.records > 0 {
				judge = "none (scored by a program)"
			}
			if s := tokenizerText(o.tokenizers); s != "" {
				tok = s
			}
		}
		slices.Sort(sources)
		replies := "the model named"
		if sim {
			replies = "llm-sim (a test double: the numbers describe the simulator)"
		}
		or := func(xs []string) string {
			if len(xs) == 0 {
				return "–"
			}
			return strings.Join(xs, ", ")
		}
		t.Rows = append(t.Rows, []string{k.model, k.bench, or([]string{k.run}), or(l.versions), or(l.dates), or(sources), records, judge, tok, replies})
	}
	if rowsOnly {
		t.Notes = append(t.Notes, "–: the report was made from metric rows (--import rows), which do not say it.")
	}
	return t
}
