package longgenbench

import (
	"strings"
	"testing"
	"unicode"
)

// Any output splits into entries whose texts come from the output, claimed
// by a number the output names after the label.
func FuzzParseEntries(f *testing.F) {
	for _, s := range []string{"#*# Day 1: a #*# Day 2: b", "Week 1 x #*# Menu Week 2 y", "#*##*#", "", "Floor 3 Floor 4 #*# Floor 3", "Day 99999999999999999999 x", "Day ٤٥ #*# Day １ #*# SubDay 3", "Menu Day 4\x1c#*#"} {
		f.Add(s, "Day")
	}
	f.Add("#*# Week 1: a", "Week")
	f.Fuzz(func(t *testing.T, output, label string) {
		e := ParseEntries(output, label, false)
		strict := ParseEntries(output, label, true)
		if e.Words != strict.Words || e.Blocks != strict.Blocks {
			t.Fatalf("%q: the modes count differently", output)
		}
		if strings.TrimLeftFunc(label, unicode.IsSpace) == label {
			for n, text := range strict.Text {
				if !strings.Contains(text, label+" ") {
					t.Fatalf("%q: strict entry %d has no label in %q", output, n, text)
				}
			}
		}
		for n, text := range e.Text {
			if n < 0 {
				t.Fatalf("%q: entry %d", output, n)
			}
			if !strings.Contains(output, strings.TrimSpace(text)) {
				t.Fatalf("%q: entry %d text %q is not from the output", output, n, text)
			}
		}
	})
}
