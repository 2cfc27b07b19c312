package eifbench

import (
	"strings"
	"testing"
)

// Any reply splits into exactly n answers; a found one is non-empty text of
// the reply.
func FuzzSplitAnswers(f *testing.F) {
	for _, s := range []string{"1. a\n2. b\n3. c", "## Sub-instruction 1\nx\n## Sub-instruction 2\ny", "<start>a<end>", "", "**1)** a **2)**", "3. c\n1. a"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, reply string, n uint8) {
		k := int(n%12) + 1
		got := SplitAnswers(reply, k)
		if len(got) != k {
			t.Fatalf("%q into %d: %d answers", reply, k, len(got))
		}
		for i, a := range got {
			if a.Found && (strings.TrimSpace(a.Text) == "" || !strings.Contains(reply, strings.TrimSpace(a.Text))) {
				t.Fatalf("%q: answer %d found with text %q not in the reply", reply, i+1, a.Text)
			}
		}
	})
}
