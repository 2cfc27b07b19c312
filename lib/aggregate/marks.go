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
// missing (--allow-partial), and the replies' tokens and how many the cache
// gave (replies.go). Kept per key, so one run's note never lands on
// another run's tables.
type marks struct {
	sources   []string
	cut       *truncation
	simulated bool
	partial   partialSets
	replies   replies
}

func newMarks(excludeTruncated bool) *marks {
	return &marks{cut: newTruncation(excludeTruncated)}
}

// add notes the record and reports whether it is to be left out
// (--exclude-truncated).
func (m *marks) add(rec *record.Record) bool {
	if src := rec.String(record.SourceField); src != "" && !slices.Contains(m.sources, src) {
		m.sources = append(m.sources, src)
	}
	if !m.simulated {
		m.simulated = fromSimulator(rec)
	}
	m.partial.add(rec)
	m.replies.add(rec)
	return m.cut.add(rec)
}

func (m *marks) mark(res *Result) {
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
