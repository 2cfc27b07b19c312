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
	n := 0
	for i := 0; i < len(s); {
		var j, m int
		if j, m, h, hashed = proseSpan(s, i, h, hashed); j > i {
			i, n = j, n+m
		} else {
			i = nextPiece(s, i)
			n++
		}
	}
	return n, fnv1a(h, s[hashed:])
}

// proseWindow is how many bytes proseSpan looks at: one bit each in a word.
const proseWindow = 64

// proseSpan counts the pieces of plain prose (ASCII words of up to letterRun
// letters, one space between them) at the start of the window s[i:i+64],
// where a piece starts, without cutting them one by one: a 455 KB prompt,
// counted on every request, is 90,000 pieces. Each space there starts a
// piece (glued to the word after it), and so does a first letter at i. It
// returns the end of the counted pieces, where the next piece starts (a
// space, or a byte after a letter that is neither), and their number; end
// is i when the window does not start with such prose, or s ends before
// the window does. On the way it folds a word of s[hashed:i] into the hash
// h for each word of the window it looks at (see hashPieces).
func proseSpan(s string, i int, h uint64, hashed int) (end, pieces int, _ uint64, _ int) {
	if i+proseWindow > len(s) {
		return i, 0, h, hashed
	}
	// One bit per byte of the window, up to the first word that is not all
	// letters and spaces (the bits after it are neither).
	var letters, spaces uint64
	for k := 0; k < proseWindow; k += 8 {
		if hashed+8 <= i {
			h = fnv1aWord(h, binary.LittleEndian.Uint64([]byte(s[hashed:hashed+8])))
			hashed += 8
		}
		l, sp := letterSpaceBytes(binary.LittleEndian.Uint64([]byte(s[i+k : i+k+8])))
		lb := gatherBits(l)
		letters |= lb << k
		if l|sp != 0x8080808080808080 {
			spaces |= gatherBits(sp) << k
			break
		}
		spaces |= (^lb & 0xff) << k
	}
	// The prose stops at a byte that is neither, at the first of two spaces
	// (a run of whitespace), or at a run of more than letterRun letters
	// (bit p of long: p and the letterRun bytes after it are letters; the
	// shifts hold for a letterRun of 9 to 15).
	stop := bits.TrailingZeros64(^(letters | spaces) | spaces&(spaces>>1))
	long := letters & (letters >> 1)
	long &= long >> 2
	long &= long >> 4
	long &= long >> (letterRun - 7) // 8 letters, then 10
	stop = min(stop, bits.TrailingZeros64(long))
	// The last piece start in (0, stop]: a space, or a byte after a letter
	// that is not one.
	starts := (spaces | letters<<1&^letters) & (2<<stop - 1) &^ 1
	if starts == 0 {
		return i, 0, h, hashed
	}
	k := bits.Len64(starts) - 1
	return i + k, bits.OnesCount64(spaces&(1<<k-1)) + int(letters&1), h, hashed
}

// letterSpaceBytes has the top bit of byte k set in letters when byte k of
// w (little-endian) is an ASCII letter (isLetter), in spaces when it is ' '.
func letterSpaceBytes(w uint64) (letters, spaces uint64) {
	const ones, high uint64 = 0x0101010101010101, 0x8080808080808080
	// Lower-cased 7-bit bytes, so that the sums carry into no other byte:
	// the top bit of a sum says the byte is >= 'a', or >= 'z'+1.
	y := (w | 0x20*ones) &^ high
	letters = (y + (0x80-'a')*ones) &^ (y + (0x80-'z'-1)*ones) &^ w & high
	x := w ^ ' '*ones // 0 where w has a space
	spaces = ^((x&^high + ^high) | x) & high
	return letters, spaces
}

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
