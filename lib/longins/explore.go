package longins

import (
	"slices"
	"strconv"

	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks place an exam in the depth rows of the report's explorer
// (the depths of its wrong answers), cut the excerpt of its exam around
// the wrong answers it asks the model to find, and set the question
// numbers the model named against the gold's.
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
	Findings: func(rec *record.Record) []explore.Finding {
		var g Gold
		var j struct {
			Detail struct {
				Predicted []string `json:"predicted"`
			} `json:"detail"`
		}
		if rec.Decode("gold", &g) != nil || rec.Decode("judgement", &j) != nil {
			return nil
		}
		var gold, found, missed, wrong []string
		for _, id := range g.Wrong {
			s := strconv.Itoa(id)
			gold = append(gold, s)
			if slices.Contains(j.Detail.Predicted, s) {
				found = append(found, s)
			} else {
				missed = append(missed, s)
			}
		}
		for _, p := range j.Detail.Predicted {
			if !slices.Contains(gold, p) {
				wrong = append(wrong, p)
			}
		}
		list := func(label string, vs []string) explore.Finding {
			return explore.Finding{Label: label + " (" + strconv.Itoa(len(vs)) + ")", Values: vs}
		}
		return []explore.Finding{
			list("answered wrongly in the exam", gold), list("named by the model", j.Detail.Predicted),
			list("found", found), list("missed", missed), list("named, though answered right", wrong),
		}
	},
}
