package longgenbench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The prompt layout, written for ifkit in the structure of the official one:
// the main task, the requirement lines (single, range, periodic), the
// entry format with an example, the entry count, the end marker, and then
// "*** started ***" and the first entry's prefix, so the model continues the
// document.

// StartMarker ends the instructions; the first entry's prefix follows it.
const StartMarker = "*** started ***"

// EndMarker is the stop string: the model writes it after the last entry.
const EndMarker = "*** finished"

// Separator opens every entry.
const Separator = "#*#"

// requirementsHeading introduces the requirement lines; the simulator looks for it.
const requirementsHeading = "Requirements, each to be placed exactly where stated:"

func (s scenario) unitWord() string {
	switch {
	case s.weekly():
		return "week"
	case s.daily():
		return "day"
	case s.width > 0:
		return "block"
	}
	return "floor"
}

func (s scenario) wordsRule() string {
	if s.maxWords > 0 {
		return fmt.Sprintf("between %d and %d words", s.minWords, s.maxWords)
	}
	return fmt.Sprintf("at least %d words", s.minWords)
}

// task draws the requirements and writes the prompt.
func (s scenario) task(rng *rand.Rand) (string, []requirement) {
	reqs := s.requirements(rng)
	var b strings.Builder
	unit := s.unitWord()
	switch s.name {
	case "diary":
		name, job := diaryNames[rng.IntN(len(diaryNames))], diaryJobs[rng.IntN(len(diaryJobs))]
		fmt.Fprintf(&b, "%s is a %s who keeps a diary of 2018 with one entry per %s. Write that diary in the first person.\n", name, job, unit)
	case "menu":
		fmt.Fprintf(&b, "You are the head chef of a busy city restaurant. Plan its menu for every %s of 2018, one entry per %s.\n", unit, unit)
	case "skyscraper":
		fmt.Fprintf(&b, "You are the lead architect of a %d-floor skyscraper. Write its design document with one entry per floor, from Floor 1 to Floor %d.\n", s.number, s.number)
	case "urban":
		fmt.Fprintf(&b, "Plan a new city district on a %dx%d grid of blocks, numbered 1 to %d from left to right and top to bottom; block 1 is at (0, 0) and block %d at (%d, %d), written (column, row). Write one entry per block.\n",
			s.width, s.width, s.number, s.number, s.width-1, s.width-1)
	}
	b.WriteString(requirementsHeading + "\n")
	titles := map[string]string{
		Single:   "Once, in the entry of the given " + s.whereWord() + ":",
		Range:    "Over a span of consecutive entries:",
		Periodic: "Repeatedly, at a fixed interval:",
	}
	for _, t := range CheckTypes {
		b.WriteString(titles[t] + "\n")
		for _, q := range reqs {
			if q.Type == t {
				b.WriteString(q.line(s) + "\n")
			}
		}
	}
	switch s.name {
	case "diary":
		b.WriteString("Besides these, each entry tells of the weather, work, family life and whatever else happened.\n")
	case "menu":
		b.WriteString("Each entry lists at least two appetizers, main courses, side dishes, desserts and drinks, each with a short description.\n")
	default:
		fmt.Fprintf(&b, "Each entry describes the %s's facilities, architecture and design details.\n", unit)
	}
	fmt.Fprintf(&b, "Each entry must have %s. Begin every entry on a new line with '%s' and its heading, for example:\n", s.wordsRule(), Separator)
	fmt.Fprintf(&b, "%s %s\n%s\n", Separator, s.heading(1), exampleEntry[s.name])
	fmt.Fprintf(&b, "Write all %d entries, one per %s and in order, with none skipped or merged. When the document is complete, write '%s'.\n", s.number, unit, EndMarker)
	b.WriteString(StartMarker + "\n" + s.prefix())
	return b.String(), reqs
}

func (s scenario) whereWord() string {
	if s.weekly() || s.daily() {
		return "date"
	}
	return s.unitWord()
}

// exampleEntry shows the style of an entry (shortened; the word rule is stated separately).
var exampleEntry = map[string]string{
	"diary":      "A grey start to the year, light rain most days and about six degrees. Work resumed on Tuesday with a planning meeting that ran long, and in the evenings we packed away the holiday lights. On Saturday the whole family walked to the harbour for fish soup and made plans for the months ahead...",
	"menu":       "A warming start to the year. Appetizers: leek and potato soup with chive oil; beetroot carpaccio with goat cheese. Main courses: braised beef cheeks with polenta; mushroom and chestnut pie. Side dishes: honey roasted carrots; buttered kale. Desserts: sticky toffee pudding; clementine sorbet. Drinks: mulled cider; a peppery red from the Douro...",
	"skyscraper": "The ground floor is the main lobby: a triple-height hall clad in pale limestone, with a reception desk of oak and bronze, security gates to the lifts, a small cafe by the south windows and seating for visitors waiting for appointments...",
	"urban":      "The corner block holds a transit plaza: a covered bus interchange with six bays, a bicycle parking hall beneath a green roof, a row of kiosks along the pavement and plane trees that shade the crossing to the neighbouring blocks...",
}
