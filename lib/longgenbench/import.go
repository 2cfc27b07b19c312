package longgenbench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// officialRecord is one record of Dataset_short.json / Dataset_long.json.
type officialRecord struct {
	Prompt         string            `json:"prompt"`
	ChecksOnce     map[string]string `json:"checks_once"`
	ChecksRange    map[string]string `json:"checks_range"`
	ChecksPeriodic map[string]string `json:"checks_periodic"`
	Type           string            `json:"type"`
	Prefix         string            `json:"prefix"`
	Number         int               `json:"number"`
}

// officialScenario maps the official (type, number) to a scenario.
func officialScenario(typ string, number int) (scenario, error) {
	var name string
	switch typ {
	case "Week", "Day":
		name = "diary"
	case "Menu Week", "Menu Day":
		name = "menu"
	case "Floor":
		name = "skyscraper"
	case "Block":
		name = "urban"
	default:
		return scenario{}, fmt.Errorf("unknown entry type %q", typ)
	}
	for _, v := range []string{Short, Long} {
		s, _ := lookup(name, v)
		if s.label == typ && s.number == number {
			return s, nil
		}
	}
	return scenario{}, fmt.Errorf("type %q with %d entries is neither the short nor the long version", typ, number)
}

// ImportOfficial emits the records of an official dataset file unchanged:
// the prompt, entry type, prefix, entry count and check sets (keys kept as
// written, e.g. zero-padded day numbers) become context and gold.
func ImportOfficial(path string, emit func(*record.Record) error) error {
	b, err := stream.ReadFile(path)
	if err != nil {
		return err
	}
	var recs []officialRecord
	if err := record.Unmarshal(b, &recs); err != nil {
		return fmt.Errorf("%s: not a LongGenBench dataset (a JSON array of records): %w", path, err)
	}
	for i, o := range recs {
		s, err := officialScenario(o.Type, o.Number)
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", path, i, err)
		}
		g := Gold{Type: o.Type, Prefix: o.Prefix, Number: o.Number, Checks: Checks{Single: o.ChecksOnce, Range: o.ChecksRange, Periodic: o.ChecksPeriodic}}
		for _, m := range []map[string]string{o.ChecksOnce, o.ChecksRange, o.ChecksPeriodic} {
			for k := range m {
				if n, err := strconv.Atoi(strings.TrimSpace(k)); err == nil && n > g.Number {
					g.LastEntry = max(g.LastEntry, n)
				}
			}
		}
		ctx := Context{Prompt: o.Prompt, Source: "official", File: filepath.Base(path), Index: i, Scenario: s.name, Version: s.version, MaxTokens: s.maxTokens}
		id := fmt.Sprintf("longgenbench-official-%s-%04d", s.version, i)
		if err := emit(item(id, s.name, s.version, "", "official", ctx, g)); err != nil {
			return err
		}
	}
	return nil
}
