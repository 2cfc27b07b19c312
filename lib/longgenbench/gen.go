package longgenbench

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/ifkit/ifkit/lib/record"
)

// GenOptions are gen-context longgenbench's flags.
type GenOptions struct {
	Scenarios []string // default: all four
	Version   string   // short or long
	Count     int      // records per scenario (the official release has 100)
	Seed      uint64
}

// Checks is the check set of a record: entry number (as text, as in the
// official files: compare as integers, "045" is entry 45) to the event
// that entry must include, per instruction type.
type Checks struct {
	Single   map[string]string `json:"single"`
	Range    map[string]string `json:"range"`
	Periodic map[string]string `json:"periodic"`
}

func (c Checks) byType(t string) map[string]string {
	switch t {
	case Single:
		return c.Single
	case Range:
		return c.Range
	}
	return c.Periodic
}

// Gold is what the splitter and the judge need: the entry label, the
// expected number of entries, the prefix the prompt ends with, the checks.
type Gold struct {
	Type   string `json:"type"`
	Prefix string `json:"prefix"`
	Number int    `json:"number"`
	Checks Checks `json:"checks"`
	// LastEntry is set by the official importer only, when a check names an
	// entry past Number: two records of Dataset_short.json place an event in
	// "week 53" of a 52-week menu. Such a check is kept, as the official
	// evaluator keeps it; only an entry the task did not ask for can meet it.
	LastEntry int `json:"last_entry,omitempty"`
}

// limit is the largest entry a check may name.
func (g Gold) limit() int { return max(g.Number, g.LastEntry) }

// Context is the task: the whole prompt (ending with "*** started ***" and
// the prefix) and where it came from.
type Context struct {
	Prompt    string `json:"prompt"`
	Source    string `json:"source"` // "ifkit" or "official"
	File      string `json:"file,omitempty"`
	Index     int    `json:"index"`
	Scenario  string `json:"scenario"`
	Version   string `json:"version"`
	MaxTokens int    `json:"max_tokens"`
}

// Validate reports options Generate would reject.
func (opt GenOptions) Validate() error {
	if opt.Count <= 0 {
		return fmt.Errorf("--count must be positive")
	}
	for _, name := range opt.Scenarios {
		if _, err := lookup(name, opt.Version); err != nil {
			return err
		}
	}
	_, err := lookup(Scenarios[0], opt.Version)
	return err
}

// Generate emits Count records per scenario, deterministic from Seed.
func Generate(opt GenOptions, emit func(*record.Record) error) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	names := opt.Scenarios
	if len(names) == 0 {
		names = Scenarios
	}
	for _, name := range names {
		s, _ := lookup(name, opt.Version)
		for i := range opt.Count {
			h := fnv.New64a()
			fmt.Fprintf(h, "%s/%s/%d", s.name, s.version, i)
			rng := rand.New(rand.NewPCG(opt.Seed, h.Sum64()))
			prompt, reqs := s.task(rng)
			g := Gold{Type: s.label, Prefix: s.prefix(), Number: s.number, Checks: checksOf(reqs, s)}
			ctx := Context{Prompt: prompt, Source: "ifkit", Index: i, Scenario: s.name, Version: s.version, MaxTokens: s.maxTokens}
			id := fmt.Sprintf("longgenbench-%s-%s-s%d-%04d", s.version, s.name, opt.Seed, i)
			if err := emit(item(id, s.name, s.version, strconv.FormatUint(opt.Seed, 10), "ifkit", ctx, g)); err != nil {
				return err
			}
		}
	}
	return nil
}

func item(id, scenarioName, version, seed, source string, ctx Context, g Gold) *record.Record {
	rec := record.New(id)
	rec.Set("bench", Bench)
	rec.Set("task", scenarioName)
	group := map[string]string{"scenario": scenarioName, "version": version, "source": source}
	if seed != "" {
		group["seed"] = seed
	}
	rec.Set("group", group)
	rec.Set("context", ctx)
	rec.Set("gold", g)
	return rec
}

func checksOf(reqs []requirement, s scenario) Checks {
	c := Checks{Single: map[string]string{}, Range: map[string]string{}, Periodic: map[string]string{}}
	for _, q := range reqs {
		m := c.byType(q.Type)
		for _, e := range q.entries(s) {
			m[strconv.Itoa(e)] = q.Event
		}
	}
	return c
}

// pickN draws n distinct elements.
func pickN[T any](rng *rand.Rand, pool []T, n int) []T {
	idx := rng.Perm(len(pool))[:n]
	out := make([]T, n)
	for i, j := range idx {
		out[i] = pool[j]
	}
	return out
}

func between(rng *rand.Rand, lo, hi int) int { return lo + rng.IntN(hi-lo+1) }

// distinctPositions draws n values in lo..hi whose entries differ.
func distinctPositions(rng *rand.Rand, s scenario, lo, hi, n int, entry func(int) int) []int {
	var out []int
	var seen []int
	for len(out) < n {
		v := between(rng, lo, hi)
		if e := entry(v); !slices.Contains(seen, e) {
			seen = append(seen, e)
			out = append(out, v)
		}
	}
	return out
}

// requirements draws the 5 single, 1 range and 1 periodic instructions.
func (s scenario) requirements(rng *rand.Rand) []requirement {
	var reqs []requirement
	singles := func(events []string, unit string, lo, hi int, entry func(int) int) {
		for i, v := range distinctPositions(rng, s, lo, hi, len(events), entry) {
			reqs = append(reqs, requirement{Type: Single, Event: events[i], Unit: unit, A: v})
		}
	}
	lastDay := 365
	if s.weekly() {
		lastDay = 7 * s.number // the last day inside week 52
	}
	same := func(v int) int { return v }
	switch s.name {
	case "diary":
		rel := pickN(rng, diaryRelations, 5)
		for i := range rel {
			rel[i] += "'s birthday"
		}
		singles(rel, unitDate, 1, lastDay, s.entryOfDay)
		span, habit := diarySpans[rng.IntN(len(diarySpans))], diaryHabits[rng.IntN(len(diaryHabits))]
		if s.weekly() {
			w := between(rng, 2, s.number-1)
			reqs = append(reqs, requirement{Type: Range, Event: span, Unit: unitWeek, A: w, B: w + 1},
				requirement{Type: Periodic, Event: habit, Unit: unitWeek, A: between(rng, 10, 19), B: between(rng, 3, 5)})
		} else {
			n := between(rng, 2, 7)
			d := between(rng, 2, 365-n)
			reqs = append(reqs, requirement{Type: Range, Event: span, Unit: unitDate, A: d, B: d + n - 1},
				requirement{Type: Periodic, Event: habit, Unit: unitDate, A: between(rng, 5, 60), B: []int{30, 40, 60}[rng.IntN(3)]})
		}
	case "menu":
		var once []string
		for _, m := range pickN(rng, menuOnce, 5) {
			once = append(once, m.String())
		}
		singles(once, unitDate, 1, lastDay, s.entryOfDay)
		span, habit := menuSpans[rng.IntN(len(menuSpans))].String(), menuHabits[rng.IntN(len(menuHabits))].String()
		if s.weekly() {
			n := between(rng, 2, 4)
			w := between(rng, 2, s.number-n+1)
			reqs = append(reqs, requirement{Type: Range, Event: span, Unit: unitWeek, A: w, B: w + n - 1},
				requirement{Type: Periodic, Event: habit, Unit: unitWeek, A: between(rng, 3, 12), B: between(rng, 2, 4)})
		} else {
			n := between(rng, 7, 14)
			d := between(rng, 2, 365-n)
			reqs = append(reqs, requirement{Type: Range, Event: span, Unit: unitDate, A: d, B: d + n - 1},
				requirement{Type: Periodic, Event: habit, Unit: unitDate, A: between(rng, 1, 28), B: []int{7, 14, 28}[rng.IntN(3)]})
		}
	case "skyscraper":
		lo, rangeLo := 2, 2
		if s.version == Long {
			lo, rangeLo = 5, 20
		}
		singles(pickN(rng, floorOnce, 5), unitFloor, lo, s.number, same)
		n := between(rng, 3, 7)
		a := between(rng, rangeLo, s.number-n)
		reqs = append(reqs, requirement{Type: Range, Event: floorSpans[rng.IntN(len(floorSpans))], Unit: unitFloor, A: a, B: a + n - 1},
			requirement{Type: Periodic, Event: floorHabits[rng.IntN(len(floorHabits))], Unit: unitFloor, A: between(rng, 21, 40), B: []int{15, 20, 25, 30}[rng.IntN(4)]})
	case "urban":
		singles(pickN(rng, urbanOnce, 5), unitBlock, 1, s.number, same)
		n := between(rng, 2, 4)
		fixed, from := rng.IntN(s.width), rng.IntN(s.width-n+1)
		a, b := s.block(from, fixed), s.block(from+n-1, fixed) // along a row
		if rng.IntN(2) == 0 {
			a, b = s.block(fixed, from), s.block(fixed, from+n-1) // along a column
		}
		row := 5
		if s.version == Long {
			row = []int{5, 10, 15}[rng.IntN(3)]
		}
		step := []int{2, 4}[rng.IntN(2)]
		reqs = append(reqs, requirement{Type: Range, Event: urbanSpans[rng.IntN(len(urbanSpans))], Unit: unitBlock, A: a, B: b},
			requirement{Type: Periodic, Event: urbanHabits[rng.IntN(len(urbanHabits))], Unit: unitBlock, A: s.block(rng.IntN(step), row), B: step})
	}
	return reqs
}
