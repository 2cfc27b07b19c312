package lifbench

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/record"
)

// exploreHooks show a LIFBench item in the report's explorer: its context
// is the text between the gold's input markers, its excerpt is cut around
// the elements the task asks about, it counts under the capabilities of
// its task's points (the IFP rows), and each rubric point says what it
// checks.
var exploreHooks = explore.Hooks{
	Keys: func(rec *record.Record) map[string][]string {
		t, ok := TaskByName(rec.String("task"))
		if !ok {
			return nil
		}
		var caps []string
		for _, p := range t.Points {
			for _, c := range p.Capabilities {
				if !slices.Contains(caps, c) {
					caps = append(caps, c)
				}
			}
		}
		return map[string][]string{"capability": caps}
	},
	Context: func(rec *record.Record, text string) (int, int, bool) {
		var g Gold
		if rec.Decode("gold", &g) != nil || g.InputStart == "" && g.InputEnd == "" {
			return 0, 0, false
		}
		i, j := inputSpan(text, g.InputStart, g.InputEnd)
		return i, j, i < j && j-i < len(text)
	},
	Focus: func(rec *record.Record) []string {
		var g Gold
		if rec.Decode("gold", &g) != nil {
			return nil
		}
		p := g.Param
		out := []string{p.Element, p.PreElement, p.PostElement, p.Evidence}
		if len(p.Elements) > 0 {
			out = append(out, p.Elements[0])
		}
		return out
	},
	Points:   func(rec *record.Record) map[string]string { return pointRules[rec.String("task")] },
	Findings: findings,
}

// findings sum a judgement's points by capability (the IFP rows) and name
// each point lost with what it checks: the rubric records a number per
// point, and the rule is its reason.
func findings(rec *record.Record) []explore.Finding {
	var j record.Judgement
	if !rec.Has("judgement") || rec.Decode("judgement", &j) != nil || len(j.Points) == 0 {
		return nil
	}
	rules := pointRules[rec.String("task")]
	var caps []string
	earned, total := map[string]float64{}, map[string]float64{}
	lost := map[string][]string{}
	var sum float64
	for _, p := range j.Points {
		got := p.Score * p.Max
		sum += got
		for _, c := range p.Capabilities {
			if !slices.Contains(caps, c) {
				caps = append(caps, c)
			}
			earned[c] += got
			total[c] += p.Max
			if got < p.Max {
				why := rules[p.Name]
				if why == "" {
					why = "see docs/lifbench.md"
				}
				lost[c] = append(lost[c], fmt.Sprintf("%s: %s of %s lost (%s)", p.Name, num(p.Max-got), num(p.Max), why))
			}
		}
	}
	var out []explore.Finding
	for _, c := range caps {
		vs := append([]string{num(earned[c]) + " of " + num(total[c]) + " points"}, lost[c]...)
		out = append(out, explore.Finding{Label: c, Values: vs})
	}
	if j.Score == 0 && sum > 0 && j.Rubric == RubricOfficial {
		out = append(out, explore.Finding{Label: "total", Values: []string{"0, although points were earned: the official list scorer returned before adding them up (an official quirk, docs/lifbench.md; judge --rubric strict adds them)"}})
	}
	return out
}

// num writes a point count as short as it goes: 2, 0.5, 1.33.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// pointRules say, per task and point, what the official rubric awards the
// point for (docs/lifbench.md has the rules in full, quirks included).
var pointRules = map[string]map[string]string{
	"single_query_id":           listLookup,
	"offset_query_id":           listLookup,
	"offset_query_element":      listLookup,
	"blur_offset_query_id":      blurLookup,
	"blur_offset_query_element": blurLookup,
	"multi_query_id": {
		"format":  "a JSON list of strings (less for a mixed list, a list found inside other text, or no list)",
		"num":     "as many answers as elements asked for",
		"correct": "each element asked for appears in the reply",
		"order":   "the elements found appear in the order asked",
	},
	"repeat": {
		"format":  "one line per sentence, each with the separator asked for",
		"ori":     "a tag name of the document appears (one point is always given, as officially)",
		"hit":     "key sentences copied verbatim, fake ones counting against",
		"num":     "separators, lines and sentences found all match the number asked for",
		"correct": "each line's sentence is close to a sentence of the tag type it names",
	},
	"qa": {
		"correct": "the option chosen matches whether the sentence is a true key sentence",
		"format":  "the reply is exactly one of the two options",
	},
	"extract": {
		"format":  "a JSON list of strings",
		"correct": "the true key sentences of the type asked for, and not its fake one",
		"order":   "the sentences found in document order (officially full whenever one is found)",
		"ori":     "at least one key sentence copied from the document",
	},
	"batch_label": {
		"candi_ori":     "each document's label is one of the candidates",
		"logit_correct": "each document's label is the one its title and source call for",
		"num_doc":       "one label per document",
		"format":        "a JSON object with a key per document",
	},
	"find_dup_text": {
		"correct":  "the duplicate groups hold the right documents",
		"num_text": "as many groups as there are duplicates",
		"ori":      "the values named occur in the documents",
		"format":   "one JSON list of lists per line",
	},
}

var listLookup = map[string]string{
	"format":  "the reply is one list element, copied exactly (its length in the elements' range)",
	"correct": "the element asked for (or its neighbour, for an offset) is in the reply (half for a near miss)",
	"ori":     "the reply contains an element of the list (if none does, the whole score is 0, as officially)",
}

var blurLookup = map[string]string{
	"ori":      "the reply contains an element of the list",
	"position": "the elements named lie on the side of the anchor asked for",
	"format":   "the reply is one list element, copied exactly",
}
