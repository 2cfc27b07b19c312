package longins

import (
	"slices"
	"strconv"

	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks place an exam in the depth rows of the report's explorer
// (the depths of its wrong answers) and cut the excerpt of its exam around
// the wrong answers it asks the model to find.
var exploreHooks = explore.Hooks{
	Keys: func(rec *record.Record) map[string][]string {
		var g Gold
		if rec.Decode("gold", &g) != nil {
			return nil
		}
		var depths []string
		for _, d := range g.Depths {
			if s := strconv.Itoa(d); !slices.Contains(depths, s) {
				depths = append(depths, s)
			}
		}
		return map[string][]string{"depth": depths}
	},
	Focus: func(rec *record.Record) []string {
		var g Gold
		if rec.Decode("gold", &g) != nil {
			return nil
		}
		var out []string
		for _, id := range g.Wrong {
			out = append(out, "["+strconv.Itoa(id)+":")
		}
		return out
	},
}
