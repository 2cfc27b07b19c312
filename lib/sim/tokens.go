package sim

import (
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
	n := 0
	for i := 0; i < len(s); i = nextPiece(s, i) {
		n++
	}
	return n
}

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
