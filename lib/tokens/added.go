package tokens

import (
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pretok"
	"github.com/ifkit/ifkit/lib/ucd"
)

// addedToken is an entry of tokenizer.json's added_tokens.
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"` // absent: !special, as the library's AddedToken::from
	Special    bool   `json:"special"`
}

// addedSet finds added tokens in a text as the tokenizers library's
// Aho-Corasick automaton does (leftmost, then longest, not overlapping),
// with a trie over the tokens' bytes: Gemma 3 has 6,415 added tokens, and
// one regular expression of them all cost three quarters of its counting
// time.
type addedSet struct {
	root  [256]int32 // the child of the root for each byte; 0: none
	nodes []trieNode
	toks  []*addedToken
}

type trieNode struct {
	tok  int32 // index in toks of the token ending here; -1: none
	kids []trieEdge
}

type trieEdge struct {
	b    byte
	node int32
}

func newAddedSet() *addedSet {
	return &addedSet{nodes: []trieNode{{tok: -1}}}
}

// add puts a token in the set under content (its normalized form for the
// normalized set). An empty content never matches; the first of two tokens
// with one content wins.
func (a *addedSet) add(content string, t *addedToken) {
	if content == "" {
		return
	}
	n := int32(0)
	for i := 0; i < len(content); i++ {
		n = a.child(n, content[i])
	}
	if a.nodes[n].tok < 0 {
		a.nodes[n].tok = int32(len(a.toks))
		a.toks = append(a.toks, t)
	}
}

func (a *addedSet) child(n int32, b byte) int32 {
	if n == 0 {
		if c := a.root[b]; c != 0 {
			return c
		}
	} else {
		for _, e := range a.nodes[n].kids {
			if e.b == b {
				return e.node
			}
		}
	}
	c := int32(len(a.nodes))
	a.nodes = append(a.nodes, trieNode{tok: -1})
	if n == 0 {
		a.root[b] = c
	} else {
		a.nodes[n].kids = append(a.nodes[n].kids, trieEdge{b, c})
	}
	return c
}

func (a *addedSet) empty() bool { return len(a.toks) == 0 }

// longest is the longest token starting at s[i:], and its end.
func (a *addedSet) longest(s string, i int) (*addedToken, int) {
	n := a.root[s[i]]
	if n == 0 {
		return nil, 0
	}
	var best *addedToken
	end := 0
	for j := i + 1; ; j++ {
		if t := a.nodes[n].tok; t >= 0 {
			best, end = a.toks[t], j
		}
		if j == len(s) {
			break
		}
		next := int32(0)
		for _, e := range a.nodes[n].kids {
			if e.b == s[j] {
				next = e.node
				break
			}
		}
		if next == 0 {
			break
		}
		n = next
	}
	return best, end
}

// segment is a stretch of text: an added token (tok != nil) or text to
// normalize and split further. start is its offset in the text split.
type segment struct {
	text  string
	tok   *addedToken
	start int
}

// split cuts s at the added tokens as the library's find_matches does: a
// single_word token only between non-word characters, lstrip and rstrip
// taking the whitespace before and after into the token.
func (a *addedSet) split(s string, out []segment) []segment {
	if a.empty() {
		return append(out, segment{text: s})
	}
	from := 0 // the end of the previous token
	for i := 0; i < len(s); {
		t, end := a.longest(s, i)
		if t == nil {
			i++
			continue
		}
		start, stop := i, end
		if t.SingleWord && (wordEnds(s[:start]) || wordStarts(s[stop:])) {
			i = end // the automaton's next match starts after this one
			continue
		}
		if t.LStrip {
			start = max(spaceRunStart(s[:start]), from)
		}
		if t.RStrip {
			stop += spaceRunLen(s[stop:])
		}
		if from < start {
			out = append(out, segment{text: s[from:start], start: from})
		}
		out = append(out, segment{text: s[start:stop], tok: t, start: start})
		from, i = stop, end
	}
	if from < len(s) {
		out = append(out, segment{text: s[from:], start: from})
	}
	return out
}

// The library tests word and space characters with Rust regex's \w and \s:
// Unicode's Alphabetic, marks, decimal digits, connector punctuation and
// the joiners; White_Space.
func isRustWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return r == 0x200C || r == 0x200D || pretok.Unicode.In(r, ucd.M|ucd.Of(ucd.Nd, ucd.Pc)) || pretok.Unicode.Prop("Alphabetic").Contains(r)
}

func wordEnds(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isRustWord(r)
}

func wordStarts(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isRustWord(r)
}

func spaceRunStart(s string) int {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if !ucd.IsWhiteSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return len(s)
}

func spaceRunLen(s string) int {
	n := 0
	for _, r := range s {
		if !ucd.IsWhiteSpace(r) {
			break
		}
		n += utf8.RuneLen(r)
	}
	return n
}
