package lifbench

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var uuidHexRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestScenarioContents checks what issue 4 asks of each scenario's context,
// on the rendered text rather than on the generator's own bookkeeping.
func TestScenarioContents(t *testing.T) {
	checks := map[string]func(t *testing.T, c *Context){
		List:     checkList,
		MultiDoc: checkMultiDoc,
		OneDoc:   checkOneDoc,
	}
	for _, rec := range genContexts(t, "16k", 5) {
		var c Context
		if err := rec.Decode("context", &c); err != nil {
			t.Fatal(err)
		}
		check, ok := checks[c.Scenario]
		if !ok {
			t.Fatalf("%s: unexpected scenario %q", rec.ID(), c.Scenario)
		}
		delete(checks, c.Scenario)
		t.Run(c.Scenario, func(t *testing.T) { check(t, &c) })
	}
	if len(checks) != 0 {
		t.Errorf("scenarios not generated: %v", checks)
	}
}

// List: numbered lines, UUIDs mixed with instruction-like lines.
func checkList(t *testing.T, c *Context) {
	lines := strings.Split(c.Text, "\n")
	if len(lines) != len(c.Elements) {
		t.Fatalf("%d lines for %d elements", len(lines), len(c.Elements))
	}
	uuids := 0
	for i, e := range c.Elements {
		if want := strconv.Itoa(i+1) + ". " + e; lines[i] != want {
			t.Errorf("line %d is %q, want %q", i+1, lines[i], want)
		}
		if uuidHexRe.MatchString(e) {
			uuids++
		}
	}
	if share := float64(uuids) / float64(len(c.Elements)); share < 0.5 || share > 0.8 {
		t.Errorf("%.2f of the elements are UUIDs, want about two thirds", share)
	}
}

// MultiDoc: every document rendered with its attributes, some titles and
// sources missing, and the duplicate groups sharing one text.
func checkMultiDoc(t *testing.T, c *Context) {
	rendered := parseDocs(c.Text) // llm-sim's reader of the rendered documents
	if len(rendered) != len(c.Docs) {
		t.Fatalf("%d documents rendered, %d recorded", len(rendered), len(c.Docs))
	}
	texts := make([]string, len(rendered))
	var noTitle, noSource int
	for i, fields := range rendered {
		d := c.Docs[i]
		for _, k := range []string{"iD2", "id", "title", "date", "source"} {
			want, has := fields[k]
			if got := d.Field(k); (got != nil) != has || got != nil && *got != want {
				t.Errorf("doc-%d %s: recorded %v, rendered %q (present %v)", i+1, k, got, want, has)
			}
		}
		if d.Title == nil {
			noTitle++
		}
		if d.Source == nil {
			noSource++
		}
		texts[i] = fields["text"]
	}
	if noTitle == 0 || noSource == 0 {
		t.Errorf("%d documents without a title and %d without a source among %d; want some of each", noTitle, noSource, len(c.Docs))
	}
	grouped := map[int]bool{}
	for _, g := range c.DupGroups {
		for _, i := range g {
			grouped[i] = true
			if texts[i] != texts[g[0]] {
				t.Errorf("group %v: doc-%d's text differs from doc-%d's", g, i+1, g[0]+1)
			}
		}
	}
	if len(c.DupGroups) != 5 {
		t.Errorf("%d duplicate groups, want 5", len(c.DupGroups))
	}
	if share := float64(len(grouped)) / float64(len(c.Docs)); share < 0.15 || share > 0.5 {
		t.Errorf("%.2f of the documents share a text, want about a quarter", share)
	}
	seen := map[string]int{}
	for i, tx := range texts {
		if j, dup := seen[tx]; dup && !(grouped[i] && grouped[j]) {
			t.Errorf("doc-%d and doc-%d share a text outside the duplicate groups", j+1, i+1)
		}
		seen[tx] = i
	}
}

// OneDoc: each key sentence is tagged in the text with its type and id; a
// fake one's closing tag names another type.
func checkOneDoc(t *testing.T, c *Context) {
	var trueN, fakeN int
	for _, lt := range c.Label {
		for _, k := range lt.Items {
			open := "<" + lt.Type + "-" + strconv.Itoa(k.ID) + ">" + k.Text
			i := strings.Index(c.Text, open)
			if i < 0 {
				t.Errorf("%s %d: %q is not tagged in the text", lt.Type, k.ID, k.Text)
				continue
			}
			closing := c.Text[i+len(open):]
			closing = closing[:strings.IndexByte(closing, '>')+1]
			if k.True {
				trueN++
				if closing != "<"+lt.Type+">" {
					t.Errorf("%s %d: true key sentence closed by %q", lt.Type, k.ID, closing)
				}
			} else {
				fakeN++
				if closing == "<"+lt.Type+">" || !strings.HasPrefix(closing, "<") {
					t.Errorf("%s %d: fake key sentence closed by %q, want another type's tag", lt.Type, k.ID, closing)
				}
			}
		}
	}
	if trueN != 20 || fakeN != 3 {
		t.Errorf("%d true and %d fake key sentences, want 20 and 3", trueN, fakeN)
	}
	for _, p := range c.Plain {
		if !strings.Contains(c.Text, p) {
			t.Errorf("plain sentence %q is not in the text", p)
		}
	}
}
