package eifbench

import (
	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks place a check in the rows by constraints per
// sub-instruction: its sub-instruction's constraints (the rows count those
// judged, which differ only when a check of it failed).
var exploreHooks = explore.Hooks{
	Keys: func(rec *record.Record) map[string][]string {
		if n := aggregate.GroupOf(rec)["sub_constraints"]; n != "" {
			return map[string][]string{"constraints_per_sub": {n}}
		}
		return nil
	},
}
