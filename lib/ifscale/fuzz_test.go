package ifscale

import "testing"

// The indexed matcher agrees with the scanning one (a transcription of the
// official regular expressions) on any reply and keyword.
func FuzzReplyClassify(f *testing.F) {
	for _, s := range [][2]string{{"Debt and equities", "equity"}, {"e-commerce", "commerce"}, {"naïve café", "café"}, {"İstanbul", "i̇"}, {"**ROIs**", "roi"}, {"", "x"}, {"x_x", "_x"}, {"ΟΔΟΣ ΟΔΟΣΑ", "οδος"}, {"a\x1cdebt", " debt\x1f"}, {"A.Σ", "ς"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, kw string) {
		if kw == "" {
			return
		}
		if fast, slow := NewReply(text).Classify(kw), scan(text, kw); fast != slow {
			t.Fatalf("text %q keyword %q: indexed %v, scanning %v", text, kw, fast, slow)
		}
	})
}
