package longgenbench

import (
	"fmt"
	"strconv"

	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks place a check in the rows of the report's explorer: its
// type (the rows per check type) and the tenth of the output its entry
// lies in (the adherence-by-position rows), as the aggregator counts them;
// and say what the check asked of which entry.
var exploreHooks = explore.Hooks{
	Keys: func(rec *record.Record) map[string][]string {
		var g CheckGold
		var counts Counts
		if rec.Decode("gold", &g) != nil || g.Check == "" {
			return nil
		}
		keys := map[string][]string{"type": {g.Check}}
		if rec.Decode("split", &counts) == nil && counts.Number > 0 && g.Entry >= 1 {
			i := positionBucket(g.Entry, counts.Number)
			keys["position"] = []string{strconv.FormatFloat(float64(i)/positionBuckets, 'f', -1, 64)}
			keys["position_range"] = []string{positionRange(i)}
		}
		return keys
	},
	Findings: func(rec *record.Record) []explore.Finding {
		var g CheckGold
		var e Entry
		if rec.Decode("gold", &g) != nil || g.Check == "" {
			return nil
		}
		found := "no: verdict missing, without a judge call (left out of the accuracy, as officially)"
		if rec.Decode("entry", &e) == nil && e.Found {
			found = "yes"
		}
		return []explore.Finding{
			{Label: "the check (" + g.Check + ")", Values: []string{fmt.Sprintf("%s %d of the output mentions %q", g.Label, g.Entry, g.Event)}},
			{Label: "the entry found in the reply", Values: []string{found}},
		}
	},
}
