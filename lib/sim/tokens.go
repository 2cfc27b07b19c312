package sim

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// The server counts tokens with a cheap, deterministic approximation of a BPE
// tokenizer instead of running one: a benchmark of 20,000 long-context
// requests must not spend its CPU in the test double. Text is cut into pieces,
// one piece per estimated token:
//
//   - a single space is glued to the word, number or symbol after it (" word");
//   - a run of ASCII letters is one piece per up to letterRun letters;
//   - a run of digits is one piece per up to 3 digits (as o200k/cl100k split numbers);
//   - a run of whitespace (newlines, indentation) is one piece per up to 16 bytes;
//   - other non-ASCII letters (accented Latin, Cyrillic, Greek, …) are one
//     piece per up to 3 runes; CJK and other characters from U+3000 up are one
//     piece per rune;
//   - any other character (punctuation, symbols) is one piece, except that a
//     run of the same character ("----", "===") is one piece per up to 4.
//
// On English prose this lands within about 15% of o200k_base. The same pieces
// are the "tokens" the server streams, cuts at max_tokens and counts in usage,
// so every number it reports is consistent with the text it sends.

const letterRun = 9

// EstimateTokens returns the server's token estimate for s.
func EstimateTokens(s string) int {
	n, _ := hashPieces(s, 0, len(s))
	return n
}

// hashPieces counts the pieces of s (EstimateTokens) and folds the bytes of
// s from hashed on into the FNV-1a state h (fnv1a): hashed 0 hashes all of
// s, len(s) none. FNV-1a is a chain of multiplications, one per byte, that
// leaves the CPU room for the counting when the two are interleaved (see
// asciiSpan): a 455 KB prompt, counted and hashed for the reply seed on
// every request, costs about what the hash alone does.
func hashPieces(s string, h uint64, hashed int) (int, uint64) {
	// The window costs a few pieces' work: where it fails or counts little
	// (CJK, emoji, a run longer than the window), it is tried again further
	// on, twice as far each time it fails again.
	n, retry, backoff := 0, 0, 0
	for i := 0; i < len(s); {
		if i >= retry {
			var j, m int
			j, m, h, hashed = asciiSpan(s, i, h, hashed)
			if j-i >= asciiWindow/4 {
				backoff = 0
			} else {
				backoff = min(2*backoff+8, 512)
				retry = max(i, j) + backoff
			}
			if j > i {
				i, n = j, n+m
				continue
			}
		}
		if c := s[i]; c < 0xe2 {
			i = nextPiece(s, i)
		} else if r, size := utf8.DecodeRuneInString(s[i:]); symbol(c, r) {
			i += size
		} else {
			i = nextPiece(s, i)
		}
		n++
		if hashed+8 <= i {
			h = fnv1aWord(h, binary.LittleEndian.Uint64([]byte(s[hashed:hashed+8])))
			hashed += 8
		}
	}
	return n, fnv1a(h, s[hashed:])
}

// symbol says whether r, which starts with the byte c (0xe2 or more), is a
// piece of its own and no letter: CJK and emoji from U+3000 on, and the
// punctuation, arrows and symbols they are written with (U+2000–U+206F,
// U+2190–U+2BFF, where unicode.IsLetter holds for none:
// TestSymbolsAreNoLetters). An ill-formed byte from 0xe3 on is a piece too
// (nextPiece); one of 0xe2 is left to nextPiece.
func symbol(c byte, r rune) bool {
	return c >= 0xe3 || r < 0x2070 || r >= 0x2190 && r < 0x2c00
}

// asciiWindow is how many bytes asciiSpan looks at: one bit each in a word.
const asciiWindow = 64

// asciiSpan counts the pieces of the ASCII text at the start of the window
// s[i:i+64], i being where a piece starts, without cutting them one by one:
// a 455 KB prompt, counted on every request, is 100,000 to 300,000 pieces,
// and where letters, digits and marks alternate (IDs, hashes, code) a
// byte-by-byte cut mispredicts a branch at nearly every piece.
//
// nextPiece's pieces are those of runs: of letters (one per letterRun), of
// digits (one per 3), of one mark repeated (one per 4) and of whitespace
// (one per 16), except that a space before a byte that is not whitespace
// goes with the run after it, without counting toward its limit. So the
// count of a stretch that starts a run and ends where another starts is,
// per run, its length over its class's limit, rounded up; the space that
// goes with the next run counts in none. The bits of a class's run starts,
// shifted by the limit while the run goes on, are its further pieces.
//
// It returns the end of the counted stretch (where the window's last run
// starts, or its first byte that is not ASCII) and its pieces; end is i
// when the window is one run, starts with a byte that is not ASCII, or s
// ends before the window does. On the way it folds a word of s[hashed:i]
// into the hash h for each word of the window (see hashPieces).
func asciiSpan(s string, i int, h uint64, hashed int) (end, pieces int, _ uint64, _ int) {
	if i+asciiWindow > len(s) {
		return i, 0, h, hashed
	}
	// One bit per byte of the window: letters, digits, spaces, other
	// whitespace (ctrl) and bytes equal to the one before. A word of
	// letters and spaces only (most of prose) has none of the others.
	var letters, digits, spaces, ctrl, same uint64
	ascii := ^uint64(0)
	prev := uint64(0)
	for k := 0; k < asciiWindow; k += 8 {
		if hashed+8 <= i {
			h = fnv1aWord(h, binary.LittleEndian.Uint64([]byte(s[hashed:hashed+8])))
			hashed += 8
		}
		w := binary.LittleEndian.Uint64([]byte(s[i+k : i+k+8]))
		l, sp := letterSpaceBytes(w)
		letters |= gatherBits(l) << k
		spaces |= gatherBits(sp) << k
		if l|sp != swarHigh {
			if high := w & swarHigh; high != 0 {
				// Nothing from the first byte that is not ASCII on.
				ascii = 1<<(k+bits.TrailingZeros64(high)/8) - 1
			}
			d := digitBytes(w)
			ws := byteIs(w, '\n') | byteIs(w, '\t') | byteIs(w, '\r')
			digits |= gatherBits(d) << k
			ctrl |= gatherBits(ws) << k
			if l|sp|d|ws != swarHigh { // marks
				same |= gatherBits(byteIs(w^(w<<8|prev), 0)) << k
			}
		}
		prev = w >> 56
		if ascii != ^uint64(0) {
			break
		}
	}
	white := (spaces | ctrl) & ascii
	letters, digits, spaces = letters&ascii, digits&ascii, spaces&ascii
	marks := ascii &^ (letters | digits | white)
	// A space before a byte that is not whitespace (of the window: the
	// bit after the last is unknown, and no stretch counted reaches it).
	glued := spaces &^ (white >> 1) &^ (1 << 63)
	white &^= glued
	// Bit p of a class's "on": p and p-1 are in one run of it.
	letterOn := letters & (letters << 1)
	digitOn := digits & (digits << 1)
	whiteOn := white & (white << 1)
	markOn := marks & (marks << 1) & same
	starts := letters&^letterOn | digits&^digitOn | white&^whiteOn | marks&^markOn
	// The last place a run starts (glued spaces begin one too), or the
	// first byte that is not ASCII.
	last := bits.Len64((starts|glued|^ascii&(ascii+1))&^1) - 1
	if last <= 0 {
		return i, 0, h, hashed
	}
	in := uint64(1)<<last - 1
	pieces = bits.OnesCount64(starts & in)
	pieces += further(starts&letters&in, onFor(letterOn, letterRun)&in, letterRun)
	pieces += further(starts&digits&in, onFor(digitOn, 3)&in, 3)
	pieces += further(starts&marks&in, onFor(markOn, 4)&in, 4)
	pieces += further(starts&white&in, onFor(whiteOn, 16)&in, 16)
	return i + last, pieces, h, hashed
}

// onFor has bit p set when bits p-n+1 … p of on all are: p is n bytes on
// in its run (n is 3, 4, letterRun or 16).
func onFor(on uint64, n int) uint64 {
	two := on & (on << 1)
	four := two & (two << 2)
	switch n {
	case 3:
		return two & (on << 2)
	case 4:
		return four
	}
	eight := four & (four << 4)
	if n == 16 {
		return eight & (eight << 8)
	}
	return eight & (on << 8) // letterRun, 9
}

// further counts the pieces after the first of the runs starting at the
// bits of starts: one every n bytes while the run goes on (bits of on).
func further(starts, on uint64, n int) (pieces int) {
	for p := starts << n & on; p != 0; p = p << n & on {
		pieces += bits.OnesCount64(p)
	}
	return pieces
}

// letterSpaceBytes has the top bit of byte k set in letters when byte k of
// w (little-endian) is an ASCII letter (isLetter), in spaces when it is ' '.
func letterSpaceBytes(w uint64) (letters, spaces uint64) {
	// Lower-cased 7-bit bytes, so that the sums carry into no other byte:
	// the top bit of a sum says the byte is >= the bound subtracted from 0x80.
	y := (w | 0x20*swarOnes) &^ swarHigh
	letters = (y + (0x80-'a')*swarOnes) &^ (y + (0x80-'z'-1)*swarOnes) &^ w & swarHigh
	return letters, byteIs(w, ' ')
}

// digitBytes has the top bit of byte k set when byte k of w is a digit.
func digitBytes(w uint64) uint64 {
	x := w &^ swarHigh // as in letterSpaceBytes
	return (x + (0x80-'0')*swarOnes) &^ (x + (0x80-'9'-1)*swarOnes) &^ w & swarHigh
}

// byteIs has the top bit of byte k set when byte k of w is c.
func byteIs(w uint64, c byte) uint64 {
	z := w ^ uint64(c)*swarOnes // 0 where w has c
	return ^((z&^swarHigh + ^swarHigh) | z) & swarHigh
}

const swarOnes, swarHigh uint64 = 0x0101010101010101, 0x8080808080808080

// gatherBits moves the top bit of byte k of m to bit k.
func gatherBits(m uint64) uint64 { return (m >> 7) * 0x0102040810204080 >> 56 }

// Pieces cuts s into the pieces EstimateTokens counts; joined they are s.
func Pieces(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := nextPiece(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// truncateTokens keeps at most n pieces of s; cut reports whether any were dropped.
func truncateTokens(s string, n int) (kept string, cut bool) {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		i = nextPiece(s, i)
	}
	return s[:i], i < len(s)
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// nextPiece returns the end of the piece that starts at i (i < len(s)).
func nextPiece(s string, i int) int {
	c := s[i]
	if c == ' ' && i+1 < len(s) && !isSpace(s[i+1]) {
		i++ // the space belongs to what follows
		c = s[i]
	} else if isSpace(c) {
		j := i + 1
		for j < len(s) && j-i < 16 && isSpace(s[j]) {
			j++
		}
		// Leave a final single space to the word after the run.
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
