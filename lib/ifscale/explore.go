package ifscale

import (
	"fmt"

	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks list, in the report's explorer, the keywords of a reply as
// the analysis classed them: found exactly, modified, missing.
var exploreHooks = explore.Hooks{
	Findings: func(rec *record.Record) []explore.Finding {
		var j struct {
			Detail *Detail `json:"detail"`
		}
		if rec.Decode("judgement", &j) != nil || j.Detail == nil {
			return nil
		}
		by := map[string][]string{}
		for _, k := range j.Detail.Keywords {
			by[k.Class] = append(by[k.Class], k.Keyword)
		}
		list := func(label string, c Class) explore.Finding {
			return explore.Finding{Label: fmt.Sprintf("%s (%d)", label, len(by[c.String()])), Values: by[c.String()]}
		}
		out := []explore.Finding{list("found exactly", Exact), list("modified: another form of the word", Modification), list("missing", Omission)}
		if j.Detail.Rejected != "" {
			out = append(out, explore.Finding{Label: "the official runner would have retried this reply", Values: []string{j.Detail.Rejected}})
		}
		return out
	},
}
