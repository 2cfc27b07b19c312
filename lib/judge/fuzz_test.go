package judge

import "testing"

// Any judge reply reads as yes or no (lenient), or yes, no or a verdict error
// (strict); strict never says yes where lenient says no.
func FuzzYesNo(f *testing.F) {
	for _, s := range []string{"yes", "No.", "**Yes**", "Answer: no", "not yes", "yes, although", "#*# YES #*#", "", "\"no\"", "maybe", "YES!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		lenient, err := YesNo{}.Parse(reply)
		if err != nil || (lenient != VerdictYes && lenient != VerdictNo) {
			t.Fatalf("lenient %q: %q, %v", reply, lenient, err)
		}
		strict, err := YesNo{Strict: true}.Parse(reply)
		if err != nil {
			return
		}
		if strict != VerdictYes && strict != VerdictNo {
			t.Fatalf("strict %q: %q", reply, strict)
		}
		if strict == VerdictYes && lenient != VerdictYes {
			t.Fatalf("%q: strict yes but lenient %s", reply, lenient)
		}
	})
}
