package aggregate

import (
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
)

// itemSources collects, per bench, where the items came from (the
// record.SourceField gen-context sets), so that every table says whether it
// was made from the official files or from the project's own samples.
type itemSources map[string][]string

func (s itemSources) add(bench string, rec *record.Record) {
	src := rec.String(record.SourceField)
	if src != "" && !slices.Contains(s[bench], src) {
		s[bench] = append(s[bench], src)
	}
}

// mark notes the bench's sources under every table of res and as the
// "source" dimension of every row.
func (s itemSources) mark(bench string, res *Result) {
	if len(s[bench]) == 0 {
		return
	}
	what := strings.Join(s[bench], "; ")
	for i := range res.Tables {
		res.Tables[i].Notes = append(res.Tables[i].Notes, "Items: "+what+".")
	}
	for i := range res.Rows {
		if res.Rows[i].Dims == nil {
			res.Rows[i].Dims = map[string]string{}
		}
		res.Rows[i].Dims["source"] = what
	}
}
