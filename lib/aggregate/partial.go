package aggregate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

// partialSets collects the incomplete sets of parts the records came from
// (app.PartialField, set under --allow-partial), so that no table made from
// k of N shards passes for the whole run.
type partialSets []string

func (p *partialSets) add(rec *record.Record) {
	if !rec.Has(app.PartialField) {
		return
	}
	var v struct {
		Present int   `json:"present"`
		Of      int   `json:"of"`
		Missing []int `json:"missing"`
	}
	if rec.Decode(app.PartialField, &v) != nil {
		return
	}
	ms := make([]string, len(v.Missing))
	for i, m := range v.Missing {
		ms[i] = fmt.Sprint(m)
	}
	s := fmt.Sprintf("%d of %d shards (missing %s)", v.Present, v.Of, strings.Join(ms, ", "))
	if !slices.Contains(*p, s) {
		*p = append(*p, s)
	}
}

// mark says so in every table and as a "shards" dimension of every row,
// in sorted order whatever order the records came in.
func (p partialSets) mark(res *Result) {
	if len(p) == 0 {
		return
	}
	annotate(res, "shards", strings.Join(slices.Sorted(slices.Values(p)), "; "))
}
