package tokens

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pretok"
	"github.com/ifkit/ifkit/lib/ucd"
)

// piece is a stretch of normalized text on its way through the
// pre-tokenizer; first says it starts the original text (offset 0), which
// Metaspace's prepend_scheme "first" asks.
type piece struct {
	text  string
	first bool
}

// preStep turns the pieces so far into finer pieces.
type preStep func(pieces []piece, lim pretok.Limit) ([]piece, error)

// span is a stretch of a piece that a split pattern did (match) or did
// not match, by byte offsets.
type span struct {
	lo, hi int
	match  bool
}

// splitBy cuts p at the spans as the library's SplitDelimiterBehavior
// says, then drops empty pieces (PreTokenizedString::split does).
func splitBy(p piece, spans []span, behavior string, out []piece) []piece {
	type part struct {
		lo, hi int
		remove bool
	}
	var parts []part
	switch behavior {
	case "Isolated":
		for _, s := range spans {
			parts = append(parts, part{s.lo, s.hi, false})
		}
	case "Removed":
		for _, s := range spans {
			parts = append(parts, part{s.lo, s.hi, s.match})
		}
	case "Contiguous":
		prev := false
		for _, s := range spans {
			if s.match == prev && len(parts) > 0 {
				parts[len(parts)-1].hi = s.hi
			} else {
				parts = append(parts, part{s.lo, s.hi, false})
			}
			prev = s.match
		}
	case "MergedWithPrevious":
		prev := false
		for _, s := range spans {
			if s.match && !prev && len(parts) > 0 {
				parts[len(parts)-1].hi = s.hi
			} else {
				parts = append(parts, part{s.lo, s.hi, false})
			}
			prev = s.match
		}
	case "MergedWithNext":
		// From the end: a delimiter joins the piece after it when that
		// piece is not itself a delimiter.
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			s := spans[i]
			if s.match && !prev && len(parts) > 0 {
				parts[len(parts)-1].lo = s.lo
			} else {
				parts = append(parts, part{s.lo, s.hi, false})
			}
			prev = s.match
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
	}
	for _, pt := range parts {
		if !pt.remove && pt.hi > pt.lo {
			out = append(out, piece{text: p.text[pt.lo:pt.hi], first: p.first && pt.lo == 0})
		}
	}
	return out
}

// finder finds a split pattern's matches: a regular expression, or a
// literal string.
type finder interface {
	FindAll(s string, lim pretok.Limit, f func(start, end int)) error
}

// literal is a Split pattern given as a string: its occurrences, left to
// right (the library escapes it into a regular expression; strings.Index
// finds the same, faster).
type literal string

func (l literal) FindAll(s string, _ pretok.Limit, f func(start, end int)) error {
	for i := 0; ; {
		j := strings.Index(s[i:], string(l))
		if j < 0 {
			return nil
		}
		f(i+j, i+j+len(l))
		i += j + len(l)
	}
}

// matchSpans is the library's Pattern::find_matches for a regular
// expression: the matches and the text between them, covering p.
func matchSpans(re finder, s string, invert bool, lim pretok.Limit) ([]span, error) {
	if s == "" {
		return []span{{0, 0, invert}}, nil
	}
	var spans []span
	prev := 0
	err := re.FindAll(s, lim, func(a, b int) {
		if prev != a {
			spans = append(spans, span{prev, a, invert})
		}
		spans = append(spans, span{a, b, !invert})
		prev = b
	})
	if prev != len(s) {
		spans = append(spans, span{prev, len(s), invert})
	}
	return spans, err
}

// charSpans is find_matches for a character predicate: each matching
// character is a match of its own.
func charSpans(s string, is func(rune) bool, invert bool) []span {
	var spans []span
	last := 0
	for i, r := range s {
		if is(r) {
			if last < i {
				spans = append(spans, span{last, i, invert})
			}
			n := utf8.RuneLen(r)
			spans = append(spans, span{i, i + n, !invert})
			last = i + n
		}
	}
	if last < len(s) || len(s) == 0 {
		spans = append(spans, span{last, len(s), invert})
	}
	return spans
}

func regexStep(re finder, behavior string, invert bool) preStep {
	return func(pieces []piece, lim pretok.Limit) ([]piece, error) {
		var out []piece
		for _, p := range pieces {
			spans, err := matchSpans(re, p.text, invert, lim)
			if err != nil {
				return nil, err
			}
			out = splitBy(p, spans, behavior, out)
		}
		return out, nil
	}
}

func charStep(is func(rune) bool, behavior string) preStep {
	return func(pieces []piece, _ pretok.Limit) ([]piece, error) {
		var out []piece
		for _, p := range pieces {
			out = splitBy(p, charSpans(p.text, is, false), behavior, out)
		}
		return out, nil
	}
}

// gpt2Pattern is the split of ByteLevel's use_regex.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

var gpt2Regexp = sync.OnceValue(func() *pretok.Regexp { return pretok.MustCompile(gpt2Pattern) })

// whitespacePattern is the Whitespace pre-tokenizer's.
var whitespaceRegexp = sync.OnceValue(func() *pretok.Regexp { return pretok.MustCompile(`\w+|[^\w\s]+`) })

// preTokenizers lists the pre-tokenizer types ParseHF honours.
const preTokenizers = "ByteLevel, Split, Metaspace, Digits, Whitespace, WhitespaceSplit, CharDelimiterSplit, Sequence"

// preTokenizer reads a pre_tokenizer as the steps it makes, each kind in
// its own function.
func (h *HF) preTokenizer(raw json.RawMessage) ([]preStep, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	var step preStep
	var err error
	switch c.Type {
	case "Sequence":
		var steps []preStep
		for _, p := range c.Pretokenizers {
			s, err := h.preTokenizer(p)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
		return steps, nil
	case "ByteLevel":
		step = h.byteLevelStep(c)
	case "Split":
		step, err = splitStep(c)
	case "Metaspace":
		step, err = h.metaspaceStep(c)
	case "Digits":
		step = digitsStep(c)
	case "Whitespace":
		step = regexStep(whitespaceRegexp(), "Removed", true)
	case "WhitespaceSplit":
		step = charStep(ucd.IsWhiteSpace, "Removed")
	case "CharDelimiterSplit":
		d, size := utf8.DecodeRuneInString(c.Delimiter)
		if size == 0 || size != len(c.Delimiter) {
			return nil, fmt.Errorf("CharDelimiterSplit delimiter %q is not one character", c.Delimiter)
		}
		step = charStep(func(r rune) bool { return r == d }, "Removed")
	default:
		return nil, fmt.Errorf("type %q is not supported (supported: %s)", c.Type, preTokenizers)
	}
	if err != nil {
		return nil, err
	}
	return []preStep{step}, nil
}

// byteLevelStep is ByteLevel: a space before each piece (add_prefix_space),
// the GPT-2 split (use_regex), then every byte as its printable stand-in.
func (h *HF) byteLevelStep(c component) preStep {
	h.byteLevel = true
	prefix := c.AddPrefixSpace == nil || *c.AddPrefixSpace
	h.prefixed = h.prefixed || prefix
	useRegex := c.UseRegex == nil || *c.UseRegex
	return func(pieces []piece, lim pretok.Limit) ([]piece, error) {
		var out []piece
		for _, p := range pieces {
			if prefix && !strings.HasPrefix(p.text, " ") {
				p.text = " " + p.text
			}
			from := len(out)
			if useRegex {
				spans, err := matchSpans(gpt2Regexp(), p.text, false, lim)
				if err != nil {
					return nil, err
				}
				out = splitBy(p, spans, "Isolated", out)
			} else if p.text != "" {
				out = append(out, p)
			}
			for i := from; i < len(out); i++ {
				out[i].text = toByteLevel(out[i].text)
			}
		}
		return out, nil
	}
}

// splitStep is Split: a regex, a literal string, or "" (between every two
// characters), with its behavior and invert.
func splitStep(c component) (preStep, error) {
	var re finder
	var err error
	switch {
	case c.Pattern.Regex != nil:
		re, err = pretok.Compile(*c.Pattern.Regex)
	case c.Pattern.String != nil && *c.Pattern.String != "":
		re = literal(*c.Pattern.String)
	case c.Pattern.String != nil:
		re, err = pretok.Compile("") // matches between every two characters
	default:
		err = fmt.Errorf("Split without a pattern")
	}
	if err != nil {
		return nil, err
	}
	if err := checkBehavior(c.Behavior); err != nil {
		return nil, err
	}
	return regexStep(re, c.Behavior, c.Invert), nil
}

// metaspaceStep is Metaspace: spaces become the replacement, prepended by
// prepend_scheme, and the text split before each (split).
func (h *HF) metaspaceStep(c component) (preStep, error) {
	rep := c.Replacement
	if rep == "" {
		rep = "▁"
	}
	if utf8.RuneCountInString(rep) != 1 {
		return nil, fmt.Errorf("Metaspace replacement %q is not one character", rep)
	}
	h.space = rep
	scheme := c.PrependScheme
	switch {
	case scheme == "" && c.AddPrefixSpace != nil && !*c.AddPrefixSpace:
		// The library refuses it: the default scheme, always, prepends.
		return nil, fmt.Errorf("Metaspace add_prefix_space false contradicts the default prepend_scheme always (give prepend_scheme never)")
	case scheme == "":
		scheme = "always"
	case scheme != "always" && scheme != "first" && scheme != "never":
		return nil, fmt.Errorf("Metaspace prepend_scheme %q is not one of always, first, never", scheme)
	}
	h.prefixed = h.prefixed || scheme != "never"
	split := c.Split == nil || *c.Split
	repRune, _ := utf8.DecodeRuneInString(rep)
	return func(pieces []piece, _ pretok.Limit) ([]piece, error) {
		var out []piece
		for _, p := range pieces {
			p.text = strings.ReplaceAll(p.text, " ", rep)
			if !strings.HasPrefix(p.text, rep) && (scheme == "always" || scheme == "first" && p.first) {
				p.text = rep + p.text
			}
			if !split {
				if p.text != "" {
					out = append(out, p)
				}
				continue
			}
			out = splitBy(p, charSpans(p.text, func(r rune) bool { return r == repRune }, false), "MergedWithNext", out)
		}
		return out, nil
	}, nil
}

// digitsStep is Digits: numeric characters apart, each alone
// (individual_digits) or in runs.
func digitsStep(c component) preStep {
	// char::is_numeric: General_Category N, at Rust's Unicode version.
	numeric := func(r rune) bool {
		if r < utf8.RuneSelf {
			return '0' <= r && r <= '9'
		}
		return rustUnicode.In(r, ucd.N)
	}
	if c.IndividualDigits {
		return charStep(numeric, "Isolated")
	}
	return charStep(numeric, "Contiguous")
}

func checkBehavior(b string) error {
	switch b {
	case "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous":
		return nil
	}
	return fmt.Errorf("Split behavior %q is not supported", b)
}

// GPT-2's byte alphabet: printable bytes stand for themselves, the others
// are shifted to code points from U+0100 so every byte is a visible rune.
var byteRune, runeByte = func() ([256]rune, map[rune]byte) {
	var br [256]rune
	rb := map[rune]byte{}
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			br[b] = rune(b)
		} else {
			br[b] = rune(256 + n)
			n++
		}
		rb[br[b]] = byte(b)
	}
	return br, rb
}()

func toByteLevel(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 2)
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteRune[s[i]])
	}
	return b.String()
}
