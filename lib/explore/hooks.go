package explore

import "github.com/ifkit/ifkit/lib/record"

// Hooks are what a benchmark adds to the explorer; every field may be nil.
type Hooks struct {
	// Keys are values of the metric rows' dimensions that an item has
	// beyond its task, group and judge model (LongIns: the depths of its
	// wrong answers; LIFBench: the capabilities its points measure). The
	// explorer lists the items behind a row by matching the row's
	// dimensions with the items' keys.
	Keys func(rec *record.Record) map[string][]string
	// Context finds the long context in the text of one prompt message, as
	// a byte range; ok false when the message holds none. Without it (or
	// when it finds nothing), the longest string of the record's "context"
	// found in the message is the context.
	Context func(rec *record.Record, text string) (start, end int, ok bool)
	// Focus names what the task asks about in the context (the needle,
	// the queried element, the wrong answers): the context's excerpt is
	// cut around them, and they are marked in it.
	Focus func(rec *record.Record) []string
	// Points says, per rubric point name of the record's judgement, what
	// the point checks, so that a point lost is shown with its reason.
	Points func(rec *record.Record) map[string]string
	// Findings say in a few labelled lists what the scoring found (IFScale:
	// the keywords found, modified and missing; LongIns: the wrong answers
	// named and missed); the item view shows them above the judgement as
	// recorded.
	Findings func(rec *record.Record) []Finding
}

// Finding is one labelled list of what the scoring of an item found.
type Finding struct {
	Label  string   `json:"label"`
	Values []string `json:"values"`
}
