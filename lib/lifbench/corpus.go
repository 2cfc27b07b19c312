package lifbench

import (
	"math/rand/v2"
	"strings"
)

// The project's own text, made procedurally from the word lists below (all
// written for ifkit): instruction-like lines for the List scenario, essay
// sentences for OneDoc and short reports for MultiDoc. Sentences start with
// the only capital letter they contain and end with the only full stop or
// question mark, so no generated line is a substring of another unless the
// two are equal; they contain none of the tag characters (< > # @ ! * - |)
// or quotes, which keeps every rubric's substring tests unambiguous.

var (
	verbsImperative = []string{"Describe", "Explain", "Summarize", "Compare", "List", "Outline", "Suggest", "Write", "Name", "Classify", "Estimate", "Rewrite", "Translate", "Sketch", "Evaluate", "Propose", "Identify", "Design", "Plan", "Draft", "Recommend", "Analyze", "Predict", "Illustrate"}
	questionHeads   = []string{"Why does", "How can", "When should", "Where would", "What makes", "How does", "Which factors let", "Why might"}
	adjectives      = []string{"quiet", "ancient", "crowded", "rural", "modern", "fragile", "coastal", "hidden", "remote", "seasonal", "northern", "wooden", "bright", "noisy", "shared", "local", "narrow", "frozen", "tidal", "humble", "gentle", "rapid", "costly", "public", "private", "sunny", "misty", "careful", "clever", "patient"}
	nouns           = []string{"river", "library", "bakery", "harbor", "orchard", "bridge", "garden", "village", "market", "workshop", "lighthouse", "school", "kitchen", "railway", "festival", "museum", "forest", "meadow", "factory", "theater", "valley", "island", "canal", "farm", "clinic", "studio", "tunnel", "archive", "mill", "observatory", "greenhouse", "ferry", "pantry", "courtyard", "stable", "quarry"}
	plural          = []string{"neighbors", "teachers", "farmers", "travelers", "students", "engineers", "painters", "sailors", "bakers", "nurses", "gardeners", "readers", "builders", "musicians", "volunteers", "merchants", "children", "tenants", "miners", "weavers"}
	verbs3          = []string{"changes", "protects", "shapes", "improves", "supports", "delays", "reveals", "reduces", "connects", "rewards", "challenges", "explains", "limits", "inspires", "feeds", "divides", "repairs", "preserves", "measures", "follows"}
	verbsBase       = []string{"plan", "share", "repair", "measure", "study", "protect", "improve", "organize", "fund", "visit", "map", "restore", "clean", "light", "heat", "insure", "build", "label", "sort", "store"}
	objects         = []string{"a weekly budget", "the morning schedule", "an old recipe", "a short poem", "the water supply", "a travel route", "the harvest record", "a small garden plot", "the school timetable", "a repair checklist", "the annual report", "a packing list", "the night shift", "a reading list", "the rent agreement", "a town map", "the energy bill", "a training plan", "the seed catalog", "a museum guide"}
	connectives     = []string{"In practice", "Over time", "For most people", "In the long run", "At first", "By contrast", "As a rule", "In many towns", "Even so", "Years later", "On balance", "In hindsight", "Most of the time", "In the end", "For that reason"}
	abstract        = []string{"patience", "curiosity", "habit", "trust", "routine", "attention", "ambition", "doubt", "memory", "craft", "taste", "luck", "effort", "fashion", "silence", "practice", "judgment", "courage", "thrift", "humor"}
	places          = []string{"in a small town", "near the coast", "during winter", "after a long drought", "in the old quarter", "along the canal", "before the holidays", "in a busy week", "on the night shift", "at the start of spring", "across the valley", "inside the archive"}
	titleHeads      = []string{"Notes on", "A Review of", "Report on", "Minutes about", "Findings on", "Questions about", "A Plan for", "Lessons from", "Costs of", "Updates on"}
	sources         = []string{"meeting", "news", "govreport", "paper"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// instructionLine makes one instruction-like list element (5 to 40 words).
func instructionLine(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return pick(r, verbsImperative) + " how the " + pick(r, adjectives) + " " + pick(r, nouns) + " " + pick(r, verbs3) + " the lives of " + pick(r, plural) + " " + pick(r, places) + "."
	case 1:
		return pick(r, questionHeads) + " a " + pick(r, adjectives) + " " + pick(r, nouns) + " help " + pick(r, plural) + " " + pick(r, verbsBase) + " " + pick(r, objects) + "?"
	case 2:
		return pick(r, verbsImperative) + " " + pick(r, objects) + " for " + pick(r, plural) + " who " + pick(r, verbsBase) + " a " + pick(r, adjectives) + " " + pick(r, nouns) + "."
	default:
		return pick(r, verbsImperative) + " three ways " + pick(r, plural) + " could " + pick(r, verbsBase) + " the " + pick(r, nouns) + " and " + pick(r, verbsBase) + " " + pick(r, objects) + " " + pick(r, places) + "."
	}
}

// essaySentence makes one sentence of the OneDoc essay.
func essaySentence(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return pick(r, connectives) + ", the " + pick(r, adjectives) + " " + pick(r, nouns) + " " + pick(r, verbs3) + " how " + pick(r, plural) + " think about " + pick(r, abstract) + "."
	case 1:
		return "The " + pick(r, plural) + " of the " + pick(r, nouns) + " learned that " + pick(r, abstract) + " " + pick(r, verbs3) + " " + pick(r, abstract) + " more than " + pick(r, abstract) + " does."
	case 2:
		return pick(r, connectives) + ", a " + pick(r, adjectives) + " " + pick(r, nouns) + " rarely " + pick(r, verbs3) + " the " + pick(r, abstract) + " of its " + pick(r, plural) + " " + pick(r, places) + "."
	case 3:
		return "Nobody expected the " + pick(r, nouns) + " to matter, yet " + pick(r, abstract) + " there " + pick(r, verbs3) + " the way " + pick(r, plural) + " " + pick(r, verbsBase) + " " + pick(r, objects) + "."
	default:
		return "What " + pick(r, verbs3) + " a " + pick(r, nouns) + " is not " + pick(r, abstract) + " but the " + pick(r, abstract) + " of " + pick(r, plural) + " who " + pick(r, verbsBase) + " it " + pick(r, places) + "."
	}
}

// uniqueSource hands out strings from gen that were not seen before.
type uniqueSource struct {
	r    *rand.Rand
	gen  func(*rand.Rand) string
	seen map[string]bool
}

func newUnique(r *rand.Rand, gen func(*rand.Rand) string) *uniqueSource {
	return &uniqueSource{r: r, gen: gen, seen: map[string]bool{}}
}

func (u *uniqueSource) next() string {
	for {
		s := u.gen(u.r)
		if !u.seen[s] {
			u.seen[s] = true
			return s
		}
	}
}

// docText makes a report body of roughly words words.
func docText(r *rand.Rand, u *uniqueSource, words int) string {
	var sb strings.Builder
	n := 0
	for n < words {
		s := u.next()
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(s)
		n += strings.Count(s, " ") + 1
	}
	return sb.String()
}

func docTitle(r *rand.Rand) string {
	t := pick(r, titleHeads) + " the " + pick(r, adjectives) + " " + pick(r, nouns)
	return strings.ToUpper(t[:1]) + t[1:]
}
