package ifscale

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pystr"
)

// Class is how a keyword appears in a reply (the official analysis.py).
type Class uint8

const (
	Omission     Class = iota // neither the word nor a word starting with its prefix
	Exact                     // the word, with word boundaries on both sides
	Modification              // a word that starts with the word's first max(3, int(0.8·len)) characters
)

func (c Class) String() string {
	switch c {
	case Exact:
		return "exact"
	case Modification:
		return "modification"
	default:
		return "omission"
	}
}

func wordBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return pystr.IsWord(r)
}

func wordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return pystr.IsWord(r)
}

// boundary is \b at byte offset i of s, with Python's Unicode \w
// (pystr.IsWord): Go's RE2 \b only knows ASCII, which would put a boundary
// inside "café" or "naïve".
func boundary(s string, i int) bool { return wordBefore(s, i) != wordAt(s, i) }

// containsWord is re.search(rf"\b{re.escape(w)}\b", text).
func containsWord(text, w string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], w)
		if i < 0 {
			return false
		}
		i += off
		if boundary(text, i) && boundary(text, i+len(w)) {
			return true
		}
		if i >= len(text) {
			return false
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		off = i + size
	}
}

// containsPrefixWord is re.search(rf"\b{re.escape(p)}[a-z]*\b", text): the
// greedy [a-z]* backtracks, so the end boundary may sit after any number of
// the ASCII letters that follow the prefix.
func containsPrefixWord(text, p string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], p)
		if i < 0 {
			return false
		}
		i += off
		if boundary(text, i) {
			end := i + len(p)
			run := end
			for run < len(text) && text[run] >= 'a' && text[run] <= 'z' {
				run++
			}
			for j := run; j >= end; j-- {
				if boundary(text, j) {
					return true
				}
			}
		}
		if i >= len(text) {
			return false
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		off = i + size
	}
}

// Prefix is the stem the modification test looks for: the first
// max(3, int(0.8·len)) code points of the lower-cased keyword.
func Prefix(kw string) string {
	n := utf8.RuneCountInString(kw)
	k := max(3, int(0.8*float64(n)))
	if k >= n {
		return kw
	}
	i := 0
	for range k {
		_, size := utf8.DecodeRuneInString(kw[i:])
		i += size
	}
	return kw[:i]
}

// Reply is a lower-cased reply prepared for classifying many keywords: its
// words (maximal runs of word characters), sorted and unique. For a keyword
// made of word characters only, \b{kw}\b matches exactly when kw is one of
// these words, and \b{prefix}[a-z]*\b when some word is the prefix followed
// by ASCII lower-case letters, so each test is a binary search instead of a
// scan of the text. Other keywords fall back to scanning.
type Reply struct {
	text  string
	words []string
}

// NewReply lower-cases the text and indexes its words.
func NewReply(text string) *Reply {
	lt := pystr.Lower(text)
	seen := map[string]bool{}
	var words []string
	start := -1
	for i, r := range lt {
		if pystr.IsWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if w := lt[start:i]; !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
			start = -1
		}
	}
	if start >= 0 && !seen[lt[start:]] {
		words = append(words, lt[start:])
	}
	slices.Sort(words)
	return &Reply{text: lt, words: words}
}

// Term is a constraint as the official analysis compares it: stripped of
// Python's whitespace and lower-cased with str.lower.
func Term(keyword string) string { return pystr.Lower(pystr.Strip(keyword)) }

func allWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !pystr.IsWord(r) {
			return false
		}
	}
	return true
}

// Classify classifies one keyword, stripped and lower-cased as the official
// _tokenise_constraints does (c.strip().lower()).
func (rp *Reply) Classify(keyword string) Class {
	kw := Term(keyword)
	p := Prefix(kw)
	if !allWord(kw) {
		return classifyScan(rp.text, kw, p)
	}
	if _, found := slices.BinarySearch(rp.words, kw); found {
		return Exact
	}
	i, _ := slices.BinarySearch(rp.words, p)
	for ; i < len(rp.words) && strings.HasPrefix(rp.words[i], p); i++ {
		if asciiLower(rp.words[i][len(p):]) {
			return Modification
		}
	}
	return Omission
}

func asciiLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func classifyScan(lowerText, kw, prefix string) Class {
	if containsWord(lowerText, kw) {
		return Exact
	}
	if containsPrefixWord(lowerText, prefix) {
		return Modification
	}
	return Omission
}
