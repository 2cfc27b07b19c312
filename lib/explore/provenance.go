package explore

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// answerer is one model's (or one run's) answers to one benchmark: a line
// of the provenance header.
type answerer struct{ bench, model, run string }

// origin is what the records say about where an answerer's data came from.
type origin struct {
	items, failed, truncated, unfinished int
	sources, judges, prompts, tokenizers []string
	simulated                            bool
}

// provenance collects the origin of every answerer, from the records; the
// rows add the rest (ifkit version, when they were made).
type provenance struct {
	by map[answerer]*origin
}

func newProvenance() *provenance { return &provenance{by: map[answerer]*origin{}} }

func addTo(xs *[]string, x string) {
	if x != "" && !slices.Contains(*xs, x) {
		*xs = append(*xs, x)
	}
}

func (p *provenance) add(rec *record.Record, e entry) {
	k := answerer{e.Bench, e.Model, e.Run}
	o := p.by[k]
	if o == nil {
		o = &origin{}
		p.by[k] = o
	}
	o.items++
	if e.Flags&flagFailed != 0 {
		o.failed++
	}
	if e.Flags&flagTruncated != 0 {
		o.truncated++
	}
	if e.Flags&flagUnfinished != 0 {
		o.unfinished++
	}
	addTo(&o.sources, rec.String(record.SourceField))
	var j struct {
		Judge *struct {
			Model string `json:"model"`
		} `json:"judge"`
		Detail struct {
			Prompt string `json:"prompt"`
		} `json:"detail"`
	}
	if rec.Has("judgement") && rec.Decode("judgement", &j) == nil && j.Judge != nil {
		addTo(&o.judges, j.Judge.Model)
		addTo(&o.prompts, j.Detail.Prompt)
	}
	var resp struct {
		Tokenizer string `json:"tokenizer"`
	}
	if rec.Has("response") && rec.Decode("response", &resp) == nil {
		addTo(&o.tokenizers, resp.Tokenizer)
	}
	o.simulated = o.simulated || aggregate.FromSimulator(rec)
}

// fill names this run's own records by its id.
func (p *provenance) fill(run string) {
	for k, o := range p.by {
		if k.run == "" {
			delete(p.by, k)
			k.run = run
			p.by[k] = o
		}
	}
}

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

func judgeText(o *origin) string {
	if len(o.judges) == 0 {
		return ""
	}
	s := strings.Join(o.judges, ", ")
	if len(o.prompts) > 0 {
		s += " (judge prompt " + strings.Join(o.prompts, ", ") + ")"
	}
	return s
}

// caption is what the records add, for one model's data of a benchmark, to
// a figure's caption.
func (p *provenance) caption(bench, model string) string {
	var judges, tokenizers []string
	merged := &origin{}
	for k, o := range p.by {
		if k.bench != bench || k.model != model {
			continue
		}
		for _, j := range o.judges {
			addTo(&merged.judges, j)
		}
		for _, q := range o.prompts {
			addTo(&merged.prompts, q)
		}
		for _, t := range o.tokenizers {
			addTo(&tokenizers, t)
		}
	}
	slices.Sort(merged.judges)
	slices.Sort(merged.prompts)
	slices.Sort(tokenizers)
	var parts []string
	if j := judgeText(merged); j != "" {
		judges = append(judges, "judge "+j)
	}
	parts = append(parts, judges...)
	if len(tokenizers) > 0 {
		parts = append(parts, "prompt tokens counted by "+tokenizerText(tokenizers))
	}
	return strings.Join(parts, "; ")
}

// header is the page's table of where each answerer's data came from: a
// line per model, benchmark and run, from the rows (ifkit version, date,
// source, llm-sim) and the records (judge, tokenizer, counts).
func (p *provenance) header(rows []report.Row) string {
	type fromRows struct {
		versions, dates, sources []string
		simulated                bool
	}
	lines := map[answerer]*fromRows{}
	for _, r := range rows {
		k := answerer{r.Bench, r.Model, r.Run}
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
		if lines[k] == nil {
			lines[k] = &fromRows{}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	keys := make([]answerer, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b answerer) int {
		return cmp.Or(strings.Compare(a.model, b.model), strings.Compare(a.run, b.run), strings.Compare(a.bench, b.bench))
	})
	var sb strings.Builder
	sb.WriteString("<section id=\"provenance\">\n<h2>Where the data came from</h2>\n<table class=\"prov\">\n<thead><tr><th>model</th><th>benchmark</th><th>run</th><th>ifkit</th><th>aggregated</th><th>items</th><th>judge</th><th>prompt tokens counted by</th><th>replies from</th></tr></thead>\n<tbody>\n")
	esc := html.EscapeString
	for _, k := range keys {
		l, o := lines[k], p.by[k]
		sources := slices.Clone(l.sources)
		simulated := l.simulated
		items, judge, tok := "", "–", "–"
		if o != nil {
			for _, s := range o.sources {
				addTo(&sources, s)
			}
			simulated = simulated || o.simulated
			items = fmt.Sprintf(" (%d records: %d failed, %d cut by the server, %d reasoning unfinished)", o.items, o.failed, o.truncated, o.unfinished)
			if j := judgeText(o); j != "" {
				judge = j
			} else if o.items > 0 {
				judge = "none (scored by a program)"
			}
			if t := tokenizerText(o.tokenizers); t != "" {
				tok = t
			}
		}
		slices.Sort(sources)
		replies := "the model named"
		if simulated {
			replies = "llm-sim, a test double: the numbers describe the simulator, not a model"
		}
		fmt.Fprintf(&sb, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(k.model), esc(k.bench), esc(k.run), esc(strings.Join(l.versions, ", ")), esc(strings.Join(l.dates, ", ")),
			esc(strings.Join(sources, "; ")), esc(items), esc(judge), esc(tok), esc(replies))
	}
	sb.WriteString("</tbody>\n</table>\n</section>\n")
	return sb.String()
}
