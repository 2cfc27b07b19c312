package aggregate

import (
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
)

// marks collects, from one run's records of one bench (the key of its
// aggregator), what every table and row made from them must say beside the
// scores: where the items came from (record.SourceField), how many prompts
// the server cut, that the replies came from llm-sim, which shards were
// missing (--allow-partial), the replies' tokens and how many the cache
// gave (replies.go), and their reasoning traces, those that never ended
// counted in every row (thinking.go). Kept per key, so one run's note
// never lands on another run's tables: the sources, llm-sim and the shards
// as dimensions of its rows (the tables' notes name the models they
// concern, rowNotes), the others as notes of its result. f makes another
// aggregator of the bench, for thinking.
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
		m.simulated = fromSimulator(rec)
	}
	m.partial.add(rec)
	m.replies.add(rec)
	if m.cut.add(rec) {
		return true
	}
	m.thinking.add(rec)
	return false
}

func (m *marks) mark(res *Result, opt Options) {
	m.thinking.count(res.Rows)
	if len(m.sources) > 0 {
		// Sorted: the dimension is the same whatever order the records came in.
		slices.Sort(m.sources)
		annotate(res, "source", strings.Join(m.sources, "; "))
	}
	m.cut.mark(res)
	if m.simulated {
		annotate(res, "simulated", "true")
	}
	m.partial.mark(res)
	m.replies.mark(res, opt.Price, opt.JudgePrice)
	m.thinking.mark(res)
}

// annotate sets the dimension dim=value on every row; the tables say it in a
// note (rowNotes), whether the rows were made now or read (--import rows).
func annotate(res *Result, dim, value string) {
	for i := range res.Rows {
		if res.Rows[i].Dims == nil {
			res.Rows[i].Dims = map[string]string{}
		}
		res.Rows[i].Dims[dim] = value
	}
}
