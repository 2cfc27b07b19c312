package eifbench

import (
	"fmt"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks place a check in the rows by constraints per
// sub-instruction: its sub-instruction's constraints (the rows count those
// judged, which differ only when a check of it failed); and say which
// constraint of which sub-instruction the judge was asked about.
var exploreHooks = explore.Hooks{
	Keys: func(rec *record.Record) map[string][]string {
		if n := aggregate.GroupOf(rec)["sub_constraints"]; n != "" {
			return map[string][]string{"constraints_per_sub": {n}}
		}
		return nil
	},
	Findings: func(rec *record.Record) []explore.Finding {
		var g childGold
		if rec.Decode("gold", &g) != nil || g.Constraint == "" {
			return nil
		}
		return []explore.Finding{
			{Label: fmt.Sprintf("sub-instruction %d of %d", g.Sub, g.Subs), Values: []string{g.Instruction}},
			{Label: fmt.Sprintf("constraint %d of %d judged", g.ConstraintIndex, g.SubConstraints), Values: []string{g.Constraint}},
		}
	},
}
