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
// proseSpan): a 455 KB prompt, counted and hashed for the reply seed on
// every request, costs about what the hash alone does.
func hashPieces(s string, h uint64, hashed int) (int, uint64) {
	// The window costs a few pieces' work: where it fails or counts little
	// (code, CJK, tables), it is tried again further on, twice as far each
	// time it fails again.
	n, retry, backoff := 0, 0, 0
	for i := 0; i < len(s); {
		if i >= retry {
			var j, m int
			j, m, h, hashed = proseSpan(s, i, h, hashed)
			if j-i >= proseWindow/4 {
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
		i = nextPiece(s, i)
		n++
		if hashed+8 <= i {
			h = fnv1aWord(h, binary.LittleEndian.Uint64([]byte(s[hashed:hashed+8])))
			hashed += 8
		}
	}
	return n, fnv1a(h, s[hashed:])
}

// proseWindow is how many bytes proseSpan looks at: one bit each in a word.
const proseWindow = 64

// proseSpan counts the pieces of plain prose at the start of the window
// s[i:i+64], where a piece starts, without cutting them one by one: a
// 455 KB prompt, counted on every request, is 90,000 pieces. Plain prose is
// ASCII words of up to letterRun letters, single spaces and single
// punctuation marks (no two in a row). There a piece starts at each space
// (glued to what follows), at each mark not after a space, at each letter
// after a mark, and at i. It returns the end of the counted pieces, where
// the next piece starts, and their number; end is i when the window does
// not start with plain prose, or s ends before the window does. On the way
// it folds a word of s[hashed:i] into the hash h for each word of the
// window it looks at (see hashPieces).
func proseSpan(s string, i int, h uint64, hashed int) (end, pieces int, _ uint64, _ int) {
	if i+proseWindow > len(s) {
		return i, 0, h, hashed
	}
	// One bit per byte of the window, up to the first word that is not all
	// letters, spaces and marks (the bits after it are none of them).
	var letters, spaces, marks uint64
	for k := 0; k < proseWindow; k += 8 {
		if hashed+8 <= i {
			h = fnv1aWord(h, binary.LittleEndian.Uint64([]byte(s[hashed:hashed+8])))
			hashed += 8
		}
		w := binary.LittleEndian.Uint64([]byte(s[i+k : i+k+8]))
		l, sp := letterSpaceBytes(w)
		lb := gatherBits(l)
		letters |= lb << k
		if l|sp == swarHigh {
			spaces |= (^lb & 0xff) << k
			continue
		}
		// Marks are looked for only in the words that have something else.
		m := markBytes(w, l)
		marks |= gatherBits(m) << k
		spaces |= gatherBits(sp) << k
		if l|sp|m != swarHigh {
			break
		}
	}
	// The prose stops at a byte that is none of them, at the first of two
	// spaces (a run of whitespace) or of two marks (a run of one, or two
	// pieces), or at a run of more than letterRun letters (bit p of long: p
	// and the letterRun bytes after it are letters; the shifts hold for a
	// letterRun of 9 to 15).
	prose := letters | spaces | marks
	stop := bits.TrailingZeros64(^prose | spaces&(spaces>>1) | marks&(marks>>1))
	long := letters & (letters >> 1)
	long &= long >> 2
	long &= long >> 4
	long &= long >> (letterRun - 7) // 8 letters, then 10
	stop = min(stop, bits.TrailingZeros64(long))
	starts := spaces | letters&(marks<<1) | marks&^(spaces<<1) | letters&1
	// The last piece start in (0, stop]: one of starts, or a byte after a
	// letter or a mark that is none of them.
	ends := (starts | (letters|marks)<<1&^prose) & (2<<stop - 1) &^ 1
	if ends == 0 {
		return i, 0, h, hashed
	}
	k := bits.Len64(ends) - 1
	return i + k, bits.OnesCount64(starts & (1<<k - 1)), h, hashed
}

// letterSpaceBytes has the top bit of byte k set in letters when byte k of
// w (little-endian) is an ASCII letter (isLetter), in spaces when it is ' '.
func letterSpaceBytes(w uint64) (letters, spaces uint64) {
	// Lower-cased 7-bit bytes, so that the sums carry into no other byte:
	// the top bit of a sum says the byte is >= the bound subtracted from 0x80.
	y := (w | 0x20*swarOnes) &^ swarHigh
	letters = (y + (0x80-'a')*swarOnes) &^ (y + (0x80-'z'-1)*swarOnes) &^ w & swarHigh
	z := w ^ ' '*swarOnes // 0 where w has a space
	spaces = ^((z&^swarHigh + ^swarHigh) | z) & swarHigh
	return letters, spaces
}

// markBytes has the top bit of byte k set when byte k of w is printable
// ASCII but a letter (letters, from letterSpaceBytes), a digit or a space.
func markBytes(w, letters uint64) uint64 {
	x := w &^ swarHigh // as in letterSpaceBytes
	printable := (x + (0x80-'!')*swarOnes) &^ (x + (0x80-'~'-1)*swarOnes)
	digits := (x + (0x80-'0')*swarOnes) &^ (x + (0x80-'9'-1)*swarOnes)
	return printable &^ digits &^ letters &^ w & swarHigh
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
