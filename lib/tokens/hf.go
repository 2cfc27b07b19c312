package tokens

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/ifkit/ifkit/lib/stream"
	"golang.org/x/text/unicode/norm"
)

// HF is a BPE tokenizer loaded from a Hugging Face tokenizer.json: the
// byte-level BPE of GPT-2, Llama 3, Qwen and Mistral's newer models, and the
// SentencePiece-style BPE with byte fallback of Llama 2 and Mistral 7B. It
// runs the file's normalizer, pre-tokenizer and model and matches its added
// tokens; the post-processor (BOS/EOS) is left out, so a count is the text's
// tokens without the special tokens a server adds around a prompt. Unigram
// and WordPiece models are refused with a clear error.
//
// The pure-Go packages that load tokenizer.json (github.com/sugarme/tokenizer)
// split with RE2, which cannot run the look-ahead in Llama 3's and Qwen's
// pre-tokenizer pattern, and have no BPE byte fallback, so their counts differ
// from the server's; this loader uses regexp2 (already needed by tiktoken-go)
// for the patterns.
type HF struct {
	vocab     map[string]int
	inverse   map[int]string
	merges    map[[2]int]int // pair → rank
	added     *regexp.Regexp // matches any added token's content
	addedIDs  map[string]int
	normalize func(string) (string, error)
	pre       []preStep
	unk       int // -1: none
	fallback  bool
	ignoreMrg bool
	byteLevel bool   // pieces are mapped to GPT-2's byte alphabet
	space     string // what stands for a space in tokens ("▁"), "" if none
	prefixed  bool   // a space is put before the text (decode removes it)

	mu    sync.Mutex
	cache map[string][]int
}

type hfFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        struct {
		Type                    string          `json:"type"`
		Vocab                   map[string]int  `json:"vocab"`
		Merges                  json.RawMessage `json:"merges"`
		UnkToken                *string         `json:"unk_token"`
		ByteFallback            bool            `json:"byte_fallback"`
		IgnoreMerges            bool            `json:"ignore_merges"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	} `json:"model"`
}

// LoadHF reads a tokenizer.json (plain or compressed).
func LoadHF(path string) (*HF, error) {
	b, err := stream.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseHF(b)
}

// ParseHF builds a tokenizer from the bytes of a tokenizer.json.
func ParseHF(b []byte) (*HF, error) {
	var f hfFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %v", err)
	}
	m := &f.Model
	if m.Type != "BPE" && !(m.Type == "" && m.Merges != nil) {
		return nil, fmt.Errorf("model type %q: only BPE tokenizers are supported", m.Type)
	}
	if (m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "") || (m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "") {
		return nil, fmt.Errorf("BPE with continuing_subword_prefix or end_of_word_suffix is not supported")
	}
	if len(m.Vocab) == 0 {
		return nil, fmt.Errorf("model.vocab is empty")
	}
	h := &HF{vocab: m.Vocab, inverse: make(map[int]string, len(m.Vocab)+len(f.AddedTokens)), merges: map[[2]int]int{},
		addedIDs: map[string]int{}, unk: -1, fallback: m.ByteFallback, ignoreMrg: m.IgnoreMerges, cache: map[string][]int{}}
	for t, id := range m.Vocab {
		h.inverse[id] = t
	}
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocabulary", *m.UnkToken)
		}
		h.unk = id
	}
	pairs, err := parseMerges(m.Merges)
	if err != nil {
		return nil, err
	}
	for rank, p := range pairs {
		a, okA := m.Vocab[p[0]]
		b, okB := m.Vocab[p[1]]
		if _, okAB := m.Vocab[p[0]+p[1]]; !okA || !okB || !okAB {
			return nil, fmt.Errorf("merge %d (%q %q) uses a token missing from the vocabulary", rank, p[0], p[1])
		}
		if _, dup := h.merges[[2]int{a, b}]; !dup {
			h.merges[[2]int{a, b}] = rank
		}
	}
	if len(f.AddedTokens) > 0 {
		var alts []string
		for _, t := range f.AddedTokens {
			if t.Content == "" {
				continue
			}
			h.addedIDs[t.Content] = t.ID
			h.inverse[t.ID] = t.Content
			alts = append(alts, t.Content)
		}
		// Longest first: RE2 prefers the earlier alternative at one position.
		sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
		for i, a := range alts {
			alts[i] = regexp.QuoteMeta(a)
		}
		if len(alts) > 0 {
			h.added = regexp.MustCompile(strings.Join(alts, "|"))
		}
	}
	if h.normalize, err = h.normalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %v", err)
	}
	if h.pre, err = h.preTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %v", err)
	}
	return h, nil
}

// parseMerges reads merges as "a b" strings (older files) or ["a", "b"] pairs.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	var out [][2]string
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var strs []string
	if json.Unmarshal(raw, &strs) == nil {
		for _, s := range strs {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merge %q: want two tokens separated by a space", s)
			}
			out = append(out, [2]string{a, b})
		}
		return out, nil
	}
	var pairs [][]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("model.merges: want strings or pairs of strings")
	}
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("merge %q: want a pair", p)
		}
		out = append(out, [2]string{p[0], p[1]})
	}
	return out, nil
}

type component struct {
	Type string `json:"type"`
	// Sequence
	Normalizers   []json.RawMessage `json:"normalizers"`
	Pretokenizers []json.RawMessage `json:"pretokenizers"`
	// Prepend, Replace
	Prepend string `json:"prepend"`
	Pattern struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Content string `json:"content"`
	// Strip
	Left  bool `json:"strip_left"`
	Right bool `json:"strip_right"`
	// ByteLevel
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// Split
	Behavior string `json:"behavior"`
	Invert   bool   `json:"invert"`
	// Metaspace
	Replacement   string `json:"replacement"`
	PrependScheme string `json:"prepend_scheme"`
	Split         *bool  `json:"split"`
	// Digits
	IndividualDigits bool `json:"individual_digits"`
}

func (h *HF) normalizer(raw json.RawMessage) (func(string) (string, error), error) {
	if len(raw) == 0 || string(raw) == "null" {
		return func(s string) (string, error) { return s, nil }, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	switch c.Type {
	case "NFC":
		return func(s string) (string, error) { return norm.NFC.String(s), nil }, nil
	case "NFKC":
		return func(s string) (string, error) { return norm.NFKC.String(s), nil }, nil
	case "NFD":
		return func(s string) (string, error) { return norm.NFD.String(s), nil }, nil
	case "NFKD":
		return func(s string) (string, error) { return norm.NFKD.String(s), nil }, nil
	case "Lowercase":
		return func(s string) (string, error) { return strings.ToLower(s), nil }, nil
	case "Strip":
		return func(s string) (string, error) {
			if c.Left {
				s = strings.TrimLeft(s, " \t\n\r\v\f")
			}
			if c.Right {
				s = strings.TrimRight(s, " \t\n\r\v\f")
			}
			return s, nil
		}, nil
	case "Prepend":
		h.prefixed = true
		h.noteSpace(c.Prepend)
		return func(s string) (string, error) {
			if s == "" {
				return s, nil
			}
			return c.Prepend + s, nil
		}, nil
	case "Replace":
		if c.Pattern.String != nil {
			old := *c.Pattern.String
			if old == " " {
				h.noteSpace(c.Content)
			}
			return func(s string) (string, error) { return strings.ReplaceAll(s, old, c.Content), nil }, nil
		}
		if c.Pattern.Regex == nil {
			return nil, fmt.Errorf("Replace without a pattern")
		}
		re, err := regexp2.Compile(*c.Pattern.Regex, regexp2.None)
		if err != nil {
			return nil, err
		}
		return func(s string) (string, error) { return re.Replace(s, c.Content, -1, -1) }, nil
	case "Sequence":
		var fs []func(string) (string, error)
		for _, n := range c.Normalizers {
			f, err := h.normalizer(n)
			if err != nil {
				return nil, err
			}
			fs = append(fs, f)
		}
		return func(s string) (string, error) {
			var err error
			for _, f := range fs {
				if s, err = f(s); err != nil {
					return "", err
				}
			}
			return s, nil
		}, nil
	}
	return nil, fmt.Errorf("type %q is not supported", c.Type)
}

func (h *HF) noteSpace(s string) {
	if s != "" && s != " " && strings.TrimSpace(s) != "" {
		h.space = strings.TrimSpace(s)
	}
}

// preStep turns the pieces so far into finer pieces.
type preStep func(pieces []string) ([]string, error)

// gpt2Pattern is the split of ByteLevel's use_regex.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

func (h *HF) preTokenizer(raw json.RawMessage) ([]preStep, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
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
		h.byteLevel = true
		prefix := c.AddPrefixSpace == nil || *c.AddPrefixSpace
		h.prefixed = h.prefixed || prefix
		var split *regexp2.Regexp
		if c.UseRegex == nil || *c.UseRegex {
			split = regexp2.MustCompile(gpt2Pattern, regexp2.Unicode)
		}
		return []preStep{func(pieces []string) ([]string, error) {
			var out []string
			for _, p := range pieces {
				if prefix && !strings.HasPrefix(p, " ") {
					p = " " + p
				}
				parts := []string{p}
				if split != nil {
					var err error
					if parts, err = splitRegexp(split, p, "Isolated", false); err != nil {
						return nil, err
					}
				}
				for _, q := range parts {
					out = append(out, toByteLevel(q))
				}
			}
			return out, nil
		}}, nil
	case "Split":
		var re *regexp2.Regexp
		var err error
		switch {
		case c.Pattern.Regex != nil:
			re, err = regexp2.Compile(*c.Pattern.Regex, regexp2.Unicode)
		case c.Pattern.String != nil:
			re, err = regexp2.Compile(regexp.QuoteMeta(*c.Pattern.String), regexp2.None)
		default:
			err = fmt.Errorf("Split without a pattern")
		}
		if err != nil {
			return nil, err
		}
		if err := checkBehavior(c.Behavior); err != nil {
			return nil, err
		}
		return []preStep{eachPiece(func(p string) ([]string, error) { return splitRegexp(re, p, c.Behavior, c.Invert) })}, nil
	case "Metaspace":
		rep := c.Replacement
		if rep == "" {
			rep = "▁"
		}
		h.space = rep
		scheme := c.PrependScheme
		if scheme == "" {
			scheme = "always"
			if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
				scheme = "never"
			}
		}
		h.prefixed = h.prefixed || scheme != "never"
		split := c.Split == nil || *c.Split
		re := regexp2.MustCompile(regexp.QuoteMeta(rep), regexp2.None)
		return []preStep{func(pieces []string) ([]string, error) {
			var out []string
			for i, p := range pieces {
				p = strings.ReplaceAll(p, " ", rep)
				if (scheme == "always" || (scheme == "first" && i == 0)) && !strings.HasPrefix(p, rep) {
					p = rep + p
				}
				if !split {
					out = append(out, p)
					continue
				}
				parts, err := splitRegexp(re, p, "MergedWithNext", false)
				if err != nil {
					return nil, err
				}
				out = append(out, parts...)
			}
			return out, nil
		}}, nil
	case "Digits":
		pat := `\p{N}+`
		if c.IndividualDigits {
			pat = `\p{N}`
		}
		re := regexp2.MustCompile(pat, regexp2.Unicode)
		return []preStep{eachPiece(func(p string) ([]string, error) { return splitRegexp(re, p, "Isolated", false) })}, nil
	}
	return nil, fmt.Errorf("type %q is not supported", c.Type)
}

func eachPiece(f func(string) ([]string, error)) preStep {
	return func(pieces []string) ([]string, error) {
		var out []string
		for _, p := range pieces {
			parts, err := f(p)
			if err != nil {
				return nil, err
			}
			out = append(out, parts...)
		}
		return out, nil
	}
}

func checkBehavior(b string) error {
	switch b {
	case "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous":
		return nil
	}
	return fmt.Errorf("Split behavior %q is not supported", b)
}

// splitRegexp cuts s at the matches of re as the tokenizers library's
// SplitDelimiterBehavior says; with invert the matches are the pieces and
// the text between them the delimiters.
func splitRegexp(re *regexp2.Regexp, s string, behavior string, invert bool) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	rs := []rune(s)
	type span struct {
		lo, hi int
		delim  bool
	}
	var spans []span
	at := 0
	m, err := re.FindRunesMatch(rs)
	for ; err == nil && m != nil; m, err = re.FindNextMatch(m) {
		if m.Length == 0 {
			continue
		}
		if m.Index > at {
			spans = append(spans, span{at, m.Index, invert})
		}
		spans = append(spans, span{m.Index, m.Index + m.Length, !invert})
		at = m.Index + m.Length
	}
	if err != nil {
		return nil, err
	}
	if at < len(rs) {
		spans = append(spans, span{at, len(rs), invert})
	}
	var out []string
	pending := "" // MergedWithNext: a delimiter waiting for what follows
	for i, sp := range spans {
		t := string(rs[sp.lo:sp.hi])
		if !sp.delim {
			out = append(out, pending+t)
			pending = ""
			continue
		}
		switch behavior {
		case "Isolated":
			out = append(out, t)
		case "Removed":
		case "MergedWithPrevious":
			if len(out) > 0 && i > 0 && !spans[i-1].delim {
				out[len(out)-1] += t
			} else {
				out = append(out, t)
			}
		case "MergedWithNext":
			pending += t
		case "Contiguous":
			if i > 0 && spans[i-1].delim && len(out) > 0 {
				out[len(out)-1] += t
			} else {
				out = append(out, t)
			}
		}
	}
	if pending != "" {
		out = append(out, pending)
	}
	return out, nil
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

func (h *HF) encode(s string) []int {
	var out []int
	for s != "" {
		lo, hi := len(s), len(s)
		if h.added != nil {
			if loc := h.added.FindStringIndex(s); loc != nil {
				lo, hi = loc[0], loc[1]
			}
		}
		out = append(out, h.encodeText(s[:lo])...)
		if hi > lo {
			out = append(out, h.addedIDs[s[lo:hi]])
		}
		s = s[hi:]
	}
	return out
}

// encodeText runs the normalizer, the pre-tokenizer and the BPE model on
// text without added tokens. A regexp error (regexp2's backtracking limit)
// cannot happen with the patterns of real files; it would only undercount.
func (h *HF) encodeText(s string) []int {
	if s == "" {
		return nil
	}
	s, err := h.normalize(s)
	if err != nil {
		return nil
	}
	pieces := []string{s}
	for _, step := range h.pre {
		if pieces, err = step(pieces); err != nil {
			return nil
		}
	}
	var out []int
	for _, p := range pieces {
		out = append(out, h.word(p)...)
	}
	return out
}

// word is the BPE of one piece, cached for short pieces (words repeat).
func (h *HF) word(p string) []int {
	if p == "" {
		return nil
	}
	if h.ignoreMrg {
		if id, ok := h.vocab[p]; ok {
			return []int{id}
		}
	}
	short := len(p) <= 64
	if short {
		h.mu.Lock()
		ids, ok := h.cache[p]
		h.mu.Unlock()
		if ok {
			return ids
		}
	}
	ids := h.bpe(p)
	if short {
		h.mu.Lock()
		if len(h.cache) > 1<<16 {
			clear(h.cache)
		}
		h.cache[p] = ids
		h.mu.Unlock()
	}
	return ids
}

// bpe merges the characters of p by rank, lowest first and leftmost among
// equals, as the tokenizers library does; a heap keeps it O(n log n) for a
// SentencePiece text that has no pre-tokenizer and is one long piece.
func (h *HF) bpe(p string) []int {
	var sym []symbol
	for i := 0; i < len(p); {
		_, n := utf8.DecodeRuneInString(p[i:])
		ch := p[i : i+n]
		i += n
		if id, ok := h.vocab[ch]; ok {
			sym = append(sym, symbol{id: id})
			continue
		}
		if h.fallback {
			ok := true
			var ids []int
			for j := 0; j < len(ch); j++ {
				id, found := h.vocab[byteToken[ch[j]]]
				if !found {
					ok = false
					break
				}
				ids = append(ids, id)
			}
			if ok {
				for _, id := range ids {
					sym = append(sym, symbol{id: id})
				}
				continue
			}
		}
		if h.unk >= 0 {
			sym = append(sym, symbol{id: h.unk})
		}
	}
	for i := range sym {
		sym[i].prev, sym[i].next = i-1, i+1
	}
	if len(sym) > 0 {
		sym[len(sym)-1].next = -1
	}
	q := &mergeQueue{}
	push := func(i int) {
		j := sym[i].next
		if j < 0 {
			return
		}
		if rank, ok := h.merges[[2]int{sym[i].id, sym[j].id}]; ok {
			heap.Push(q, merge{rank: rank, pos: i, left: sym[i].id, right: sym[j].id})
		}
	}
	for i := range sym {
		push(i)
	}
	for q.Len() > 0 {
		m := heap.Pop(q).(merge)
		i := m.pos
		j := sym[i].next
		if sym[i].gone || j < 0 || sym[i].id != m.left || sym[j].id != m.right {
			continue // stale: a neighbour merged first
		}
		sym[i].id = h.vocab[h.inverse[m.left]+h.inverse[m.right]]
		sym[j].gone = true
		sym[i].next = sym[j].next
		if sym[j].next >= 0 {
			sym[sym[j].next].prev = i
		}
		if sym[i].prev >= 0 {
			push(sym[i].prev)
		}
		push(i)
	}
	var out []int
	for i := range sym {
		if !sym[i].gone {
			out = append(out, sym[i].id)
		}
	}
	return out
}

// byteToken is the byte-fallback token of each byte: "<0x0A>".
var byteToken = func() (t [256]string) {
	for b := range t {
		t[b] = fmt.Sprintf("<0x%02X>", b)
	}
	return t
}()

type symbol struct {
	id         int
	prev, next int
	gone       bool
}

type merge struct{ rank, pos, left, right int }

type mergeQueue []merge

func (q mergeQueue) Len() int { return len(q) }
func (q mergeQueue) Less(i, j int) bool {
	if q[i].rank != q[j].rank {
		return q[i].rank < q[j].rank
	}
	return q[i].pos < q[j].pos
}
func (q mergeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *mergeQueue) Push(x any)   { *q = append(*q, x.(merge)) }
func (q *mergeQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// decode turns ids back into text: byte-level tokens back into bytes,
// "<0xNN>" byte-fallback tokens into their byte, the space symbol into a
// space, and the space the tokenizer put before the text away again.
func (h *HF) decode(ids []int) string {
	var b []byte
	for _, id := range ids {
		t, ok := h.inverse[id]
		if !ok {
			continue
		}
		if _, isAdded := h.addedIDs[t]; isAdded {
			b = append(b, t...)
			continue
		}
		if h.fallback && len(t) == 6 && strings.HasPrefix(t, "<0x") && t[5] == '>' {
			if v, err := strconv.ParseUint(t[3:5], 16, 8); err == nil {
				b = append(b, byte(v))
				continue
			}
		}
		if h.byteLevel {
			for _, r := range t {
				if c, ok := runeByte[r]; ok {
					b = append(b, c)
				} else {
					b = utf8.AppendRune(b, r)
				}
			}
			continue
		}
		if h.space != "" {
			t = strings.ReplaceAll(t, h.space, " ")
		}
		b = append(b, t...)
	}
	s := string(b)
	if h.prefixed {
		s = strings.TrimPrefix(s, " ")
	}
	return s
}
