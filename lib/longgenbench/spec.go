package longgenbench

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Units a requirement is placed by.
const (
	unitDate  = "date"  // a day of the year (A, B are days of the year)
	unitWeek  = "week"  // a week number
	unitFloor = "floor" // a floor number
	unitBlock = "block" // a block number (its grid cell is rendered)
)

// requirement is one instruction of a task: an event placed at one entry
// (single: A), over A..B (range), or every B entries from A (periodic). The
// prompt line and the entries it covers are both derived from it, and the
// simulator parses the line back, so the three cannot disagree.
type requirement struct {
	Type  string
	Event string
	Unit  string
	A, B  int
}

func monthDay(doy int) string {
	d := dateOf(doy)
	return fmt.Sprintf("%s %d", d.Format("January"), d.Day())
}

// line is the requirement as the prompt states it.
func (q requirement) line(s scenario) string {
	var where string
	switch q.Type + "/" + q.Unit {
	case "single/date":
		where = "on " + monthDay(q.A)
	case "single/floor":
		where = fmt.Sprintf("on Floor %d", q.A)
	case "single/block":
		x, y := s.cell(q.A)
		where = fmt.Sprintf("at block (%d, %d)", x, y)
	case "range/week":
		where = fmt.Sprintf("during weeks %d to %d", q.A, q.B)
	case "range/date":
		where = fmt.Sprintf("from %s to %s", monthDay(q.A), monthDay(q.B))
	case "range/floor":
		where = fmt.Sprintf("on Floors %d to %d", q.A, q.B)
	case "range/block":
		x1, y1 := s.cell(q.A)
		x2, y2 := s.cell(q.B)
		where = fmt.Sprintf("on the blocks from (%d, %d) to (%d, %d)", x1, y1, x2, y2)
	case "periodic/week":
		where = fmt.Sprintf("every %d weeks, starting from week %d", q.B, q.A)
	case "periodic/date":
		where = fmt.Sprintf("every %d days, starting on %s", q.B, monthDay(q.A))
	case "periodic/floor":
		where = fmt.Sprintf("every %d floors, starting from Floor %d", q.B, q.A)
	case "periodic/block":
		x, y := s.cell(q.A)
		where = fmt.Sprintf("every %d blocks along row %d, starting at block (%d, %d)", q.B, y, x, y)
	default:
		panic("longgenbench: no layout for " + q.Type + "/" + q.Unit)
	}
	return "- " + q.Event + " " + where + "."
}

// entries lists the entries the requirement covers, in order, within 1..number.
func (q requirement) entries(s scenario) []int {
	var out []int
	add := func(e int) {
		if e >= 1 && e <= s.number && (len(out) == 0 || out[len(out)-1] != e) {
			out = append(out, e)
		}
	}
	day := q.Unit == unitDate
	at := func(v int) int {
		if day {
			return s.entryOfDay(v)
		}
		return v
	}
	switch q.Type {
	case Single:
		add(at(q.A))
	case Range:
		step := 1
		if q.Unit == unitBlock {
			if _, y1 := s.cell(q.A); y1 != (q.B-1)/s.width {
				step = s.width // along a column
			}
		}
		for v := q.A; v <= q.B; v += step {
			add(at(v))
		}
	case Periodic:
		limit := s.number
		if day {
			limit = 365
		}
		if q.Unit == unitBlock {
			_, y := s.cell(q.A)
			limit = s.block(s.width-1, y)
		}
		for v := q.A; v <= limit; v += q.B {
			add(at(v))
		}
	}
	return out
}

// The patterns that read a requirement line back (see line). Periodic and
// range forms are tried before single ones: "starting on May 3." also ends
// like a single date.
var linePatterns = []struct {
	typ, unit string
	re        *regexp.Regexp
}{
	{Periodic, unitWeek, regexp.MustCompile(`^- (.+) every (\d+) weeks, starting from week (\d+)\.$`)},
	{Periodic, unitDate, regexp.MustCompile(`^- (.+) every (\d+) days, starting on ([A-Z][a-z]+ \d+)\.$`)},
	{Periodic, unitFloor, regexp.MustCompile(`^- (.+) every (\d+) floors, starting from Floor (\d+)\.$`)},
	{Periodic, unitBlock, regexp.MustCompile(`^- (.+) every (\d+) blocks along row \d+, starting at block \((\d+), (\d+)\)\.$`)},
	{Range, unitWeek, regexp.MustCompile(`^- (.+) during weeks (\d+) to (\d+)\.$`)},
	{Range, unitDate, regexp.MustCompile(`^- (.+) from ([A-Z][a-z]+ \d+) to ([A-Z][a-z]+ \d+)\.$`)},
	{Range, unitFloor, regexp.MustCompile(`^- (.+) on Floors (\d+) to (\d+)\.$`)},
	{Range, unitBlock, regexp.MustCompile(`^- (.+) on the blocks from \((\d+), (\d+)\) to \((\d+), (\d+)\)\.$`)},
	{Single, unitDate, regexp.MustCompile(`^- (.+) on ([A-Z][a-z]+ \d+)\.$`)},
	{Single, unitFloor, regexp.MustCompile(`^- (.+) on Floor (\d+)\.$`)},
	{Single, unitBlock, regexp.MustCompile(`^- (.+) at block \((\d+), (\d+)\)\.$`)},
}

// numbers reads integers and month-day dates (as days of the year).
func numbers(vs []string) ([]int, bool) {
	n := make([]int, 0, len(vs))
	for _, v := range vs {
		if i, err := strconv.Atoi(v); err == nil {
			n = append(n, i)
		} else if t, err := time.Parse("January 2 2006", fmt.Sprintf("%s %d", v, year)); err == nil {
			n = append(n, t.YearDay())
		} else {
			return nil, false
		}
	}
	return n, true
}

// parseLine reads a requirement line of a prompt this package wrote.
func parseLine(line string, s scenario) (requirement, bool) {
	line = strings.TrimSpace(line)
	for _, p := range linePatterns {
		m := p.re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		q := requirement{Type: p.typ, Unit: p.unit, Event: m[1]}
		n, ok := numbers(m[2:])
		if !ok || (p.unit == unitBlock && s.width == 0) {
			continue // e.g. "on Floor 7." also looks like a date
		}
		switch {
		case p.typ == Periodic && p.unit == unitBlock:
			q.B, q.A = n[0], s.block(n[1], n[2])
		case p.typ == Periodic:
			q.B, q.A = n[0], n[1]
		case p.unit == unitBlock && p.typ == Range:
			q.A, q.B = s.block(n[0], n[1]), s.block(n[2], n[3])
		case p.unit == unitBlock:
			q.A = s.block(n[0], n[1])
		case p.typ == Range:
			q.A, q.B = n[0], n[1]
		default:
			q.A = n[0]
		}
		return q, true
	}
	return requirement{}, false
}
