package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refNextPiece is nextPiece as it was before its fast path: the reference
// that the fast path must agree with, piece for piece, on every input.
func refNextPiece(s string, i int) int {
	c := s[i]
	if c == ' ' && i+1 < len(s) && !isSpace(s[i+1]) {
		i++ // the space belongs to what follows
		c = s[i]
	} else if isSpace(c) {
		j := i + 1
		for j < len(s) && j-i < 16 && isSpace(s[j]) {
			j++
		}
		if j < len(s) && j-i > 1 && s[j-1] == ' ' && !isSpace(s[j]) {
			j--
		}
		return j
	}
	switch {
	case isLetter(c):
		j := i + 1
		for j < len(s) && j-i < letterRun && isLetter(s[j]) {
			j++
		}
		return j
	case isDigit(c):
		j := i + 1
		for j < len(s) && j-i < 3 && isDigit(s[j]) {
			j++
		}
		return j
	case c < utf8.RuneSelf:
		j := i + 1
		for j < len(s) && j-i < 4 && s[j] == c {
			j++
		}
		return j
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	j := i + size
	if r >= 0x3000 || !unicode.IsLetter(r) {
		return j
	}
	for k := 1; k < 3 && j < len(s) && s[j] >= utf8.RuneSelf; k++ {
		r2, size2 := utf8.DecodeRuneInString(s[j:])
		if r2 >= 0x3000 || !unicode.IsLetter(r2) {
			break
		}
		j += size2
	}
	return j
}

func refPieces(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := refNextPiece(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// checkPieces compares the server's pieces of s, its count and its cuts
// with the reference's, and the hash taken with the count with hash/fnv's.
func checkPieces(t *testing.T, s string) {
	t.Helper()
	want := refPieces(s)
	if got := Pieces(s); strings.Join(got, "\x00|") != strings.Join(want, "\x00|") || len(got) != len(want) {
		t.Fatalf("Pieces(%q) = %q, want %q", s, got, want)
	}
	if n := EstimateTokens(s); n != len(want) {
		t.Fatalf("EstimateTokens(%q) = %d, want %d", s, n, len(want))
	}
	ref := fnv.New64a()
	ref.Write([]byte(s))
	if n, h := hashPieces(s, fnvOffset64, 0); n != len(want) || h != ref.Sum64() {
		t.Fatalf("hashPieces(%q) = %d, %x, want %d, %x (hash/fnv)", s, n, h, len(want), ref.Sum64())
	}
	for _, n := range []int{0, 1, len(want) / 2, max(len(want)-1, 0), len(want)} {
		kept, cut := truncateTokens(s, n)
		if wantKept := strings.Join(want[:min(n, len(want))], ""); kept != wantKept || cut != (n < len(want)) {
			t.Fatalf("truncateTokens(%q, %d) = %q, %v, want %q, %v", s, n, kept, cut, wantKept, n < len(want))
		}
	}
}

// prose is the text EstimateTokens counts a window at a time: words of up
// to letterRun letters, one space apart, longer than proseWindow.
const prose = "the quick brown fox jumps over a lazy dog near the river bank Abcdefghi xyz "

// FuzzPiecesMatchReference: the fast paths cut and count every input,
// invalid UTF-8 included, as the byte-by-byte algorithm does.
func FuzzPiecesMatchReference(f *testing.F) {
	for _, s := range []string{
		"", " ", "a", " a", "  a", "the quick brown fox", " Internationalisation abcdefghi abcdefghij",
		"x\xffy", "\xe2\x82", "naïve café", "日本語のテキスト", "1234567 and 89", "----===", "a\n\n  b\tc\r\n d",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefgh@[`{ zzzzzzzz\x80", "word" + strings.Repeat(" ", 20) + "word",
		prose + prose, prose + "Internationalisation " + prose, prose + "a  b\n\nc, d. " + prose + "\xff" + prose,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPieces(t, s)
		checkPieces(t, prose+s+prose)
	})
}

// TestPiecesMatchReferenceInProse puts every byte value at every position of
// a window of prose, from every start, where the window decides what it
// counts; then random texts of prose's letters, spaces and a few others.
func TestPiecesMatchReferenceInProse(t *testing.T) {
	base := []byte(prose + prose)
	for c := range 256 {
		for pos := range len(prose) {
			b := slices.Clone(base)
			b[pos] = byte(c)
			for start := range 12 {
				checkPieces(t, string(b[start:]))
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcdefghijklmnopqrstuvwxyzABCXYZ      ~\n0\x80\xc3\xa9")
	for range 5000 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkPieces(t, string(b))
	}
}

var (
	hashSink  uint64
	countSink int
)

// BenchmarkEstimateTokens counts the pieces of 455 KB prompts (the one of
// bench/batch/run.sh long; prose with punctuation, numbers, capitals and
// paragraphs; Japanese; JSON, where the prose path never applies), alone and with the reply seed's hash (fast+hash should
// cost about what hash does); refNextPiece is the byte-by-byte baseline.
func BenchmarkEstimateTokens(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the a of and to in is was that for it with as his on be at by had are but from or have an they which one you were all her she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people Mr how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three")
	long := strings.Fields("instruction internationalisation responsibilities understanding")
	var sb strings.Builder
	for n := 0; sb.Len() < 455000; n++ {
		switch w := words[rng.IntN(len(words))]; {
		case n%90 == 89:
			sb.WriteString(".\n\n")
		case n%12 == 11:
			sb.WriteString(". " + strings.ToUpper(w[:1]) + w[1:])
		case n%7 == 6:
			sb.WriteString(", " + w)
		case n%31 == 30:
			fmt.Fprintf(&sb, " %d", rng.IntN(100000))
		case n%17 == 16:
			sb.WriteString(" " + long[rng.IntN(len(long))])
		default:
			sb.WriteString(" " + w)
		}
	}
	fill := func(s string) string { return strings.Repeat(s, 455000/len(s)+1)[:455000] }
	for _, tc := range []struct{ name, text string }{
		{"repeated", fill("the quick brown fox jumps over a lazy dog near the river bank ")},
		{"prose", sb.String()[:455000]},
		{"cjk", fill("長い文脈の中から指示に従って答えを書く。")},
		{"json", fill(`{"id": 1234, "tags": ["a-b", "c_d"], "v": [0.25, -3e7, null]},` + "\n")},
	} {
		text := tc.text
		for _, v := range []struct {
			name string
			f    func()
		}{
			{"fast", func() { countSink = EstimateTokens(text) }},
			{"fast+hash", func() { hashPieces(text, fnvOffset64, 0) }},
			{"hash", func() { hashSink = fnv1a(fnvOffset64, text) }},
			{"reference", func() {
				n := 0
				for i := 0; i < len(text); i = refNextPiece(text, i) {
					n++
				}
				countSink = n
			}},
		} {
			b.Run(tc.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					v.f()
				}
			})
		}
	}
}
