package ifscale

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/pystr"
)

// scan classifies a keyword by scanning the text, as the official regular
// expressions do: the oracle for the indexed classifier (Reply.Classify).
func scan(text, keyword string) Class {
	kw := Term(keyword)
	return classifyScan(pystr.Lower(text), kw, Prefix(kw))
}

// The indexed classifier must agree with the scanning one (a transcription
// of the official regular expressions) on every keyword and text.
func TestReplyAgreesWithScan(t *testing.T) {
	pieces := []string{"debt", "debts", "Debt", "equity", "equities", "équity", "café", "cafés", "_", "-", "'", " ", " ", " ", "\n", "**", "2", "roi", "ROIs", "e-commerce", "commerce", "naïve", "ß", "İ", "x", "é", ",", ".", "Σ", "ΟΔΟΣ", "\x1c"}
	kws := []string{"debt", "equity", "équity", "café", "roi", "e-commerce", "commerce", "naïve", "x", "ß", "i̇", "debt-", "-debt", "a b", "2", "_x", "οδος", "οδοσ", " debt\x1f"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := sb.String()
		rp := NewReply(text)
		for _, kw := range kws {
			if fast, slow := rp.Classify(kw), scan(text, kw); fast != slow {
				t.Fatalf("text %q keyword %q: indexed %v, scanning %v", text, kw, fast, slow)
			}
		}
	}
}
