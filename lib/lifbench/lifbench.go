package lifbench

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Bench is the value of the "bench" field.
const Bench = "lifbench"

// Scenarios in the official order.
const (
	List     = "list"
	MultiDoc = "multidoc"
	OneDoc   = "onedoc"
)

// Scenarios lists the three scenario names.
var Scenarios = []string{List, MultiDoc, OneDoc}

// PointSpec is one score point of a task's rubric: its weight (the maximum
// raw score) and the capabilities it measures (paper Table 6, as in the
// official score-capability map).
type PointSpec struct {
	Name         string
	Max          float64
	Capabilities []string
}

// Task describes one of the eleven tasks.
type Task struct {
	Name      string
	Scenario  string
	Code      string // the paper's abbreviation (Table 2)
	MaxTokens int    // the official inference limit
	Points    []PointSpec
}

// Total is the task weight R_t: the sum of its points' maxima.
func (t *Task) Total() float64 {
	var s float64
	for _, p := range t.Points {
		s += p.Max
	}
	return s
}

// Capabilities in the paper's column order (Table 8).
var Capabilities = []string{"Format", "Logit", "Num", "Ori", "Recog", "Spat"}

func pt(name string, max float64, caps ...string) PointSpec {
	return PointSpec{Name: name, Max: max, Capabilities: caps}
}

// Tasks in the column order of the paper's Table 3.
var Tasks = []*Task{
	{Name: "repeat", Scenario: OneDoc, Code: "OR", MaxTokens: 512, Points: []PointSpec{
		pt("format", 3, "Format"), pt("ori", 2, "Ori"), pt("hit", 2, "Recog"), pt("num", 4, "Num"), pt("correct", 3, "Logit")}},
	{Name: "qa", Scenario: OneDoc, Code: "OQ", MaxTokens: 512, Points: []PointSpec{
		pt("correct", 3, "Logit"), pt("format", 2, "Format")}},
	{Name: "extract", Scenario: OneDoc, Code: "OE", MaxTokens: 512, Points: []PointSpec{
		pt("format", 4, "Format"), pt("correct", 4, "Recog"), pt("order", 4, "Spat"), pt("ori", 2, "Ori")}},
	{Name: "single_query_id", Scenario: List, Code: "LSI", MaxTokens: 100, Points: []PointSpec{
		pt("format", 1, "Format"), pt("correct", 2, "Recog"), pt("ori", 1, "Ori")}},
	{Name: "multi_query_id", Scenario: List, Code: "LMI", MaxTokens: 512, Points: []PointSpec{
		pt("format", 2, "Format"), pt("num", 3, "Num"), pt("correct", 3, "Recog"), pt("order", 2, "Spat")}},
	{Name: "offset_query_id", Scenario: List, Code: "LOI", MaxTokens: 100, Points: []PointSpec{
		pt("format", 1, "Format"), pt("correct", 2, "Recog", "Spat"), pt("ori", 1, "Ori")}},
	{Name: "offset_query_element", Scenario: List, Code: "LOE", MaxTokens: 100, Points: []PointSpec{
		pt("format", 1, "Format"), pt("correct", 2, "Spat"), pt("ori", 1, "Ori")}},
	{Name: "blur_offset_query_id", Scenario: List, Code: "LBI", MaxTokens: 100, Points: []PointSpec{
		pt("ori", 1, "Ori"), pt("position", 3, "Spat"), pt("format", 1, "Format")}},
	{Name: "blur_offset_query_element", Scenario: List, Code: "LBE", MaxTokens: 100, Points: []PointSpec{
		pt("ori", 1, "Ori"), pt("position", 3, "Spat"), pt("format", 1, "Format")}},
	{Name: "batch_label", Scenario: MultiDoc, Code: "MB", MaxTokens: 4096, Points: []PointSpec{
		pt("candi_ori", 3, "Ori"), pt("logit_correct", 3, "Logit"), pt("num_doc", 3, "Num", "Recog"), pt("format", 5, "Format")}},
	{Name: "find_dup_text", Scenario: MultiDoc, Code: "MF", MaxTokens: 4096, Points: []PointSpec{
		pt("correct", 4, "Logit", "Recog"), pt("num_text", 5, "Num", "Logit"), pt("ori", 6, "Ori"), pt("format", 5, "Format")}},
}

var taskByName = func() map[string]*Task {
	m := map[string]*Task{}
	for _, t := range Tasks {
		m[t.Name] = t
	}
	return m
}()

// TaskByName finds a task by its name (e.g. "single_query_id"), also
// accepting the official file stem "list-single_query_id".
func TaskByName(name string) (*Task, bool) {
	if t, ok := taskByName[name]; ok {
		return t, true
	}
	if i := strings.IndexByte(name, '-'); i >= 0 {
		t, ok := taskByName[name[i+1:]]
		return t, ok
	}
	return nil, false
}

// TasksOf lists a scenario's tasks in table order.
func TasksOf(scenario string) []*Task {
	var ts []*Task
	for _, t := range Tasks {
		if t.Scenario == scenario {
			ts = append(ts, t)
		}
	}
	return ts
}

// Length is one context budget: Tokens is the exact budget, Label how
// reports name it.
type Length struct {
	Label  string
	Tokens int
}

// officialLengths are the official budgets (×1024 tokens) and the paper's
// names for them.
var officialLengths = []Length{{"4k", 3 * 1024}, {"8k", 6 * 1024}, {"16k", 13 * 1024}, {"32k", 28 * 1024}, {"64k", 60 * 1024}, {"128k", 120 * 1024}}

// DefaultLengths are the six official intervals.
func DefaultLengths() []Length { return append([]Length(nil), officialLengths...) }

// ParseLengths reads "4k,8k,1k,5000": the paper's names 4k…128k mean the
// official budgets (3, 6, 13, 28, 60, 120 × 1024 tokens); any other "Nk" is
// N×1024 tokens and a bare number is tokens.
//
// The paper's names are intervals of the whole prompt (the "16k" context is
// 13 K tokens), so a custom budget, which bounds the context alone, is
// labelled "ctx" + its size ("ctx15k", "ctx5000"): "15k" next to "16k" would
// read as the larger of the two. "ctxNk" is accepted as input too, and
// reports sort lengths by their budget in tokens (docs/lifbench.md).
func ParseLengths(s string) ([]Length, error) {
	var out []Length
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		l, err := parseLength(f)
		if err != nil {
			return nil, err
		}
		if seen[l.Label] {
			return nil, fmt.Errorf("length %q given twice", f)
		}
		seen[l.Label] = true
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no lengths in %q", s)
	}
	return out, nil
}

func parseLength(f string) (Length, error) {
	low := strings.ToLower(f)
	for _, l := range officialLengths {
		if low == l.Label {
			return l, nil
		}
	}
	n, mult := strings.TrimPrefix(low, customPrefix), 1
	if strings.HasSuffix(n, "k") {
		n, mult = strings.TrimSuffix(n, "k"), 1024
	}
	v, err := strconv.Atoi(n)
	if err != nil || v <= 0 {
		return Length{}, fmt.Errorf("length %q: want 4k…128k, Nk or a token count", f)
	}
	if v*mult < 1024 {
		return Length{}, fmt.Errorf("length %q: the smallest budget is 1024 tokens (the list tasks need more than 20 elements)", f)
	}
	label := customPrefix + strconv.Itoa(v) + "k"
	if mult == 1 {
		label = customPrefix + strconv.Itoa(v)
	}
	return Length{Label: label, Tokens: v * mult}, nil
}

// customPrefix marks the label of a budget that is not one of the paper's.
const customPrefix = "ctx"

// LabelForOfficial names an official length field (3, 6, 13, 28, 60, 120).
func LabelForOfficial(kilo int) string {
	for _, l := range officialLengths {
		if l.Tokens == kilo*1024 {
			return l.Label
		}
	}
	return strconv.Itoa(kilo) + "k"
}

// lengthOrder sorts length labels by their token budget.
func lengthOrder(labels []string) {
	tok := func(s string) int {
		if l, err := parseLength(s); err == nil {
			return l.Tokens
		}
		return 1 << 40
	}
	sort.SliceStable(labels, func(i, j int) bool {
		a, b := tok(labels[i]), tok(labels[j])
		if a != b {
			return a < b
		}
		return labels[i] < labels[j]
	})
}
