package longgenbench

import (
	"regexp"
	"strconv"
	"strings"
)

// The requirement phrasings of the official short (16K) prompts, so that
// llm-sim can also write the documents the official Dataset_short.json asks
// for. Each pattern turns its submatches into requirements; the events are
// spelled as the official check sets spell them.
var officialPatterns = []struct {
	re    *regexp.Regexp
	parse func(m []string, s scenario) []requirement
}{
	{regexp.MustCompile(`(?:: |, )([^,:]+?) \(birthday on ([A-Z][a-z]+ \d+)\)`), func(m []string, s scenario) []requirement {
		return date(Single, m[1]+" birthday", m[2])
	}},
	{regexp.MustCompile(`(?m)^2\) (.+) in week (\d+)-(\d+)\.`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Range, Event: m[1], Unit: unitWeek, A: atoi(m[2]), B: atoi(m[3])}}
	}},
	{regexp.MustCompile(`(?m)^3\) (.+?) every (\d+) weeks[^,\n]*, starting from week (\d+)`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Periodic, Event: m[1], Unit: unitWeek, A: atoi(m[3]), B: atoi(m[2])}}
	}},
	{regexp.MustCompile(`Designate Floor (\d+) for (.+?) use\.`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Single, Event: m[2], Unit: unitFloor, A: atoi(m[1])}}
	}},
	{regexp.MustCompile(`Allocate Floors (\d+) to (\d+) for (?:an? )?(.+?)\.`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Range, Event: m[3], Unit: unitFloor, A: atoi(m[1]), B: atoi(m[2])}}
	}},
	{regexp.MustCompile(`Include (?:an? )?(.+?) every (\d+) floors, starting from Floor (\d+)`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Periodic, Event: m[1], Unit: unitFloor, A: atoi(m[3]), B: atoi(m[2])}}
	}},
	{regexp.MustCompile(`(?m)Celebrate '(.+?)' on (\d\d)-(\d\d) with a special dish: (.+?)\.\s*$`), func(m []string, s scenario) []requirement {
		return date(Single, m[1]+" featuring "+m[4], monthName(m[2])+" "+strings.TrimLeft(m[3], "0"))
	}},
	{regexp.MustCompile(`(?m)Feature '(.+?)' from Week (\d+) to Week (\d+) with dishes like: (.+?)\.\s*$`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Range, Event: m[1] + " featuring " + m[4], Unit: unitWeek, A: atoi(m[2]), B: atoi(m[3])}}
	}},
	{regexp.MustCompile(`(?m)Include '(.+?)' every (\d+) weeks starting from Week (\d+), serving: (.+?)\.\s*$`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Periodic, Event: m[1] + " featuring " + m[4], Unit: unitWeek, A: atoi(m[3]), B: atoi(m[2])}}
	}},
	{regexp.MustCompile(`Designate Block at \((\d+), (\d+)\) for (.+?) use\.`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Single, Event: m[3], Unit: unitBlock, A: s.block(atoi(m[1]), atoi(m[2]))}}
	}},
	{regexp.MustCompile(`Allocate (?:an? )?(.+?) along the (?:row|column) from \((\d+), (\d+)\) to \((\d+), (\d+)\)\.`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Range, Event: m[1], Unit: unitBlock, A: s.block(atoi(m[2]), atoi(m[3])), B: s.block(atoi(m[4]), atoi(m[5]))}}
	}},
	{regexp.MustCompile(`Include (?:an? )?(.+?) starting from Block at \((\d+), (\d+)\) with an interval of every (\d+) blocks`), func(m []string, s scenario) []requirement {
		return []requirement{{Type: Periodic, Event: m[1], Unit: unitBlock, A: s.block(atoi(m[2]), atoi(m[3])), B: atoi(m[4])}}
	}},
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func monthName(mm string) string {
	n := atoi(mm)
	if n < 1 || n > 12 {
		return ""
	}
	return dateOf(1).AddDate(0, n-1, 0).Format("January")
}

// date is a requirement on the day "January 2"; none when it is no date.
func date(typ, event, monthDay string) []requirement {
	n, ok := numbers([]string{monthDay})
	if !ok {
		return nil
	}
	return []requirement{{Type: typ, Event: event, Unit: unitDate, A: n[0]}}
}

// parseOfficial reads the requirements of an official short prompt.
func parseOfficial(instructions string, s scenario) []requirement {
	var reqs []requirement
	for _, p := range officialPatterns {
		for _, m := range p.re.FindAllStringSubmatch(instructions, -1) {
			reqs = append(reqs, p.parse(m, s)...)
		}
	}
	return reqs
}
