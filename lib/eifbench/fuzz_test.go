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

// Official parsing always reaches a verdict; a reply that says 是, 否 or
// 答案 without one full-width verdict line is yes exactly when 是 occurs and
// 否 does not (6_evaluation.py get_answer), and strict parsing never
// contradicts a single verdict line.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{"答案：是", "分析：是否满足？\n答案: 是", "Answer: yes", "yes", "", "否", "答案：是\n答案：否", "Err", "答案：YES"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		v, _, ok := ParseVerdict(reply, false)
		if !ok || (v != "yes" && v != "no") {
			t.Fatalf("%q: official parsing gave %q, ok %v", reply, v, ok)
		}
		lines := strings.Count(reply, "答案：是") + strings.Count(reply, "答案：否")
		chinese := strings.ContainsAny(reply, "是否") || strings.Contains(reply, "答案")
		if want := "no"; chinese && lines != 1 {
			if strings.Contains(reply, "是") && !strings.Contains(reply, "否") {
				want = "yes"
			}
			if v != want {
				t.Fatalf("%q: %s, but the official fallback says %s", reply, v, want)
			}
		}
		if sv, _, ok := ParseVerdict(reply, true); ok && sv != "yes" && sv != "no" {
			t.Fatalf("%q: strict parsing gave %q", reply, sv)
		}
	})
}
