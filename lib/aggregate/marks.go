package aggregate

import (
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// marks collects, from one run's records of one bench (the key of its
// aggregator), what every table and row made from them must say beside the
// scores: where the items came from (record.SourceField), how many prompts
// the server cut, that the replies came from llm-sim, which shards were
// missing (--allow-partial), the replies' tokens and how many the cache
// gave (replies.go), and their reasoning traces, those that never ended
// counted in every row (thinking.go). Kept per key, so one run's note
// never lands on another run's tables. f makes another aggregator of the
// bench, for thinking.
type marks struct {
	sources   []string
	cut       *truncation
	simulated bool
	partial   partialSets
	replies   replies
	thinking  *thinking
}

func newMarks(f Factory, opt Options) *marks {
	return &marks{cut: newTruncation(opt.ExcludeTruncated), thinking: newThinking(f, opt)}
}

// add notes the record and reports whether it is to be left out
// (--exclude-truncated).
func (m *marks) add(rec *record.Record) bool {
	if src := rec.String(record.SourceField); src != "" && !slices.Contains(m.sources, src) {
		m.sources = append(m.sources, src)
	}
	if !m.simulated {
		m.simulated = FromSimulator(rec)
	}
	m.partial.add(rec)
	m.replies.add(rec)
	if m.cut.add(rec) {
		return true
	}
	m.thinking.add(rec)
	return false
}

func (m *marks) mark(res *Result) {
	m.thinking.count(res.Rows)
	if len(m.sources) > 0 {
		// Sorted: the note is the same whatever order the records came in.
		slices.Sort(m.sources)
		what := strings.Join(m.sources, "; ")
		annotate(res.Rows, res.Tables, "Items: "+what+".", "source", what)
	}
	m.cut.mark(res)
	if m.simulated {
		annotate(res.Rows, res.Tables, SimulatorNote, "simulated", "true")
	}
	m.partial.mark(res.Rows, res.Tables)
	m.replies.mark(res.Tables)
	m.thinking.mark(res.Tables)
}

// annotate adds note under every table and the dimension dim=value to every
// row.
func annotate(rows []report.Row, tables []report.Table, note, dim, value string) {
	for i := range tables {
		tables[i].Notes = append(tables[i].Notes, note)
	}
	for i := range rows {
		if rows[i].Dims == nil {
			rows[i].Dims = map[string]string{}
		}
		rows[i].Dims[dim] = value
	}
}
