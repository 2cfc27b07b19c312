package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzHashChunks: counted and hashed a remembered chunk at a time, any text
// gives the pieces and the hash hashPieces gives whole, the first time
// (chunks computed) and the second (chunks remembered), wherever its line
// feeds fall.
func FuzzHashChunks(f *testing.F) {
	for _, s := range []string{
		"", "a\nb", "a\n\nb\n c\n\td\ne", "word \nword  \n  word\n", "日本\n語\nの", "x\xff\ny\n\xe2\x82\nz",
		prose + "\n" + prose + "\n\n" + prose, "1234\n5678\n----\n====\n", strings.Repeat("ab\n", 40),
	} {
		f.Add(s, uint64(fnvOffset64), uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, h uint64, least uint8) {
		k := int(least)%64 + 1
		for _, text := range []string{s, prose + "\n" + s + "\n" + prose} {
			wn, wh := hashPieces(text, h, 0)
			for range 2 {
				if n, sum := hashChunks(text, h, k); n != wn || sum != wh {
					t.Fatalf("hashChunks(%q, %x, %d) = %d, %x; whole: %d, %x", text, h, k, n, sum, wn, wh)
				}
			}
		}
	})
}

// Prompts that share a long context (LIFBench's layout) count and hash it
// once: each later prompt adds only the chunk of its own instruction to the
// memo, and every prompt's result is its whole text's.
func TestHashTextSharedContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < 20*memoChunk {
		for range 1 + rng.IntN(30) {
			b.WriteString(strings.Fields(prose)[rng.IntN(14)] + " ")
		}
		b.WriteString([]string{"\n", "\n\n", ".\n  ", " \n"}[rng.IntN(4)])
	}
	context := b.String()
	textMemo.mu.Lock()
	textMemo.m = nil
	textMemo.mu.Unlock()
	entries := func() int {
		textMemo.mu.Lock()
		defer textMemo.mu.Unlock()
		return len(textMemo.m)
	}
	first := 0
	for i := range 5 {
		text := context + fmt.Sprintf("\n\nInstruction: answer question %d about the text above.", i)
		wn, wh := hashPieces(text, fnvOffset64, 0)
		if n, h := hashText(text, fnvOffset64); n != wn || h != wh {
			t.Fatalf("prompt %d: %d pieces, hash %x; whole: %d, %x", i, n, h, wn, wh)
		}
		if i == 0 {
			first = entries()
			if first < 10 {
				t.Fatalf("a context of %d bytes was cut into %d chunks", len(context), first)
			}
		} else if got := entries(); got != first+i {
			t.Fatalf("prompt %d on the same context: the memo holds %d chunks, want %d", i, got, first+i)
		}
	}
}
