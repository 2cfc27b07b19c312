package longgenbench

import (
	"fmt"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/expand"
)

// Bench is the record's "bench" value.
const Bench = "longgenbench"

// Check types, in the order the paper lists them.
const (
	Single   = "single"
	Range    = "range"
	Periodic = "periodic"
)

// CheckTypes are the three instruction types.
var CheckTypes = []string{Single, Range, Periodic}

// Versions: short asks for about 16K tokens of output, long for about 32K.
const (
	Short = "short"
	Long  = "long"
)

// scenario is one of the four tasks in one version.
type scenario struct {
	name      string // diary, menu, skyscraper, urban
	version   string
	label     string // the entry label: Week, Day, Menu Week, Menu Day, Floor, Block
	number    int    // entries expected
	minWords  int    // words asked per entry
	maxWords  int    // 0: no upper bound
	maxTokens int    // max_tokens of the request
	width     int    // urban: grid width
}

// Scenarios are the names gen-context accepts, in the paper's order.
var Scenarios = []string{"diary", "menu", "skyscraper", "urban"}

func lookup(name, version string) (scenario, error) {
	short := version == Short
	if !short && version != Long {
		return scenario{}, fmt.Errorf("version %q: want short or long", version)
	}
	s := scenario{name: name, version: version, maxTokens: 32000}
	if short {
		s.maxTokens = 16000
	}
	switch name {
	case "diary":
		s.label, s.number, s.minWords = "Day", 365, 100
		if short {
			s.label, s.number, s.minWords = "Week", 52, 200
		}
	case "menu":
		s.label, s.number, s.minWords, s.maxWords = "Menu Day", 365, 150, 170
		if short {
			s.label, s.number, s.minWords, s.maxWords = "Menu Week", 52, 200, 220
		}
	case "skyscraper":
		s.label, s.number, s.minWords = "Floor", 300, 100
		if short {
			s.number, s.minWords = 100, 150
		}
	case "urban":
		s.label, s.number, s.width, s.minWords = "Block", 361, 19, 100
		if short {
			s.number, s.width, s.minWords = 100, 10, 150
		}
	default:
		return scenario{}, fmt.Errorf("scenario %q: want one of %s", name, strings.Join(Scenarios, ", "))
	}
	return s, nil
}

// daily reports whether entries are days of the year (else weeks, floors or blocks).
func (s scenario) daily() bool { return strings.HasSuffix(s.label, "Day") }

// weekly reports whether entries are weeks of the year.
func (s scenario) weekly() bool { return strings.HasSuffix(s.label, "Week") }

// year is the calendar the temporal scenarios use: 2018 starts on a Monday,
// so week n is days 7n-6 .. 7n.
const year = 2018

func dateOf(doy int) time.Time { return time.Date(year, 1, doy, 0, 0, 0, 0, time.UTC) }

// weekOf is the ISO week, as the official generator counts: day n is in
// week (n-1)/7+1, except December 31st, which is in week 1 of 2019.
func weekOf(doy int) int {
	_, w := dateOf(doy).ISOWeek()
	return w
}

// entryOfDay maps a day of the year to the entry that covers it.
func (s scenario) entryOfDay(doy int) int {
	if s.weekly() {
		return weekOf(doy)
	}
	return doy
}

func longDate(t time.Time) string { return t.Format("January") + " " + expand.Ordinal(t.Day()) }

// heading is the text after "#*# " that opens entry n, e.g. "Week 3
// (January 15th - January 21st):" or "Block 12 (1, 1):".
func (s scenario) heading(n int) string {
	switch {
	case s.weekly():
		return fmt.Sprintf("%s %d (%s - %s):", s.label, n, longDate(dateOf(7*n-6)), longDate(dateOf(7*n)))
	case s.daily():
		d := dateOf(n)
		return fmt.Sprintf("%s %d (%s, %s):", s.label, n, d.Weekday(), longDate(d))
	case s.width > 0:
		x, y := s.cell(n)
		return fmt.Sprintf("%s %d (%d, %d):", s.label, n, x, y)
	}
	return fmt.Sprintf("%s %d:", s.label, n)
}

// prefix is the first entry's opening, which ends the prompt.
func (s scenario) prefix() string { return "#*# " + s.heading(1) }

// cell is the (x, y) grid position of block n: blocks run left to right,
// then top to bottom, from (0, 0).
func (s scenario) cell(n int) (x, y int) { return (n - 1) % s.width, (n - 1) / s.width }

func (s scenario) block(x, y int) int { return y*s.width + x + 1 }
