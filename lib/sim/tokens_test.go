package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// checkPieces compares EstimateTokens, and the hash taken with the count,
// with nextPiece cutting s one piece at a time (the algorithm before the
// ASCII window, which Pieces and truncateTokens still use) and hash/fnv.
func checkPieces(t *testing.T, s string) {
	t.Helper()
	want := Pieces(s)
	if strings.Join(want, "") != s {
		t.Fatalf("Pieces(%q) = %q: not the text", s, want)
	}
	if n := EstimateTokens(s); n != len(want) {
		t.Fatalf("EstimateTokens(%q) = %d, want %d", s, n, len(want))
	}
	ref := fnv.New64a()
	ref.Write([]byte(s))
	if n, h := hashPieces(s, fnvOffset64, 0); n != len(want) || h != ref.Sum64() {
		t.Fatalf("hashPieces(%q) = %d, %x, want %d, %x (hash/fnv)", s, n, h, len(want), ref.Sum64())
	}
}

// prose and code are texts EstimateTokens counts a window at a time,
// longer than asciiWindow: words of up to letterRun letters, one space
// apart; and runs of every class, of every length about their limits.
const (
	prose = "the quick brown fox jumps over a lazy dog near the river bank Abcdefghi xyz "
	code  = "\tx1 = a[12345] + 0xDEADbeef9;  // 7f3c-9b1e_2d\r\n\n    if (y >= 42) {{ z--; }}\n" +
		"abcdefghijklmnopqrs9876543210----------......\t\t  \x00\x00 ;;" + "                 A\n"
)

// FuzzPiecesMatchReference: the ASCII window counts every input, invalid
// UTF-8 included, as the byte-by-byte cut does.
func FuzzPiecesMatchReference(f *testing.F) {
	for _, s := range []string{
		"", " ", "a", " a", "  a", "the quick brown fox", " Internationalisation abcdefghi abcdefghij",
		"x\xffy", "\xe2\x82", "naïve café", "日本語のテキスト", "1234567 and 89", "----===", "a\n\n  b\tc\r\n d",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefgh@[`{ zzzzzzzz\x80", "word" + strings.Repeat(" ", 20) + "word",
		prose + prose, prose + "Internationalisation " + prose, prose + "a  b\n\nc, d. " + prose + "\xff" + prose,
		code + code, code + "é" + code,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPieces(t, s)
		checkPieces(t, prose+s+prose)
		checkPieces(t, code+s+code)
	})
}

// TestPiecesMatchReferenceInWindows puts every byte value at every position
// of a window of prose and of code, from every start, where the window
// decides what it counts; then random texts of a few of each class.
func TestPiecesMatchReferenceInWindows(t *testing.T) {
	for _, text := range []string{prose, code} {
		base := []byte(text + text)
		for c := range 256 {
			for pos := range len(text) {
				b := slices.Clone(base)
				b[pos] = byte(c)
				for start := range 12 {
					checkPieces(t, string(b[start:]))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcdefghijklmnopqrstuvwxyzABCXYZ      ~~--(\n\n\t\r0123456789\x00\x80\xc3\xa9")
	for range 20000 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkPieces(t, string(b))
	}
}

// TestSymbolsAreNoLetters: symbol takes the runes of these blocks for
// pieces of their own without asking unicode.IsLetter.
func TestSymbolsAreNoLetters(t *testing.T) {
	for _, block := range [][2]rune{{0x2000, 0x2070}, {0x2190, 0x2c00}} {
		for r := block[0]; r < block[1]; r++ {
			if unicode.IsLetter(r) {
				t.Errorf("%U is a letter", r)
			}
		}
	}
	checkPieces(t, "a\u2000b\u206f\u2070\u2071c\u218f\u2190\u2bff\u2c00\u2c01\u2c02\u2c03\u3000\xe2\x80 \xe2\xe3")
}

var (
	hashSink  uint64
	countSink int
)

// BenchmarkEstimateTokens counts the pieces of 455 KB prompts (the one of
// bench/batch/run.sh long; prose with punctuation, numbers, capitals and
// paragraphs; Japanese; JSON), alone and with the reply seed's hash
// (fast+hash should cost about what hash does); reference is the
// byte-by-byte count EstimateTokens was before the window.
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
				for i := 0; i < len(text); i = nextPiece(text, i) {
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
