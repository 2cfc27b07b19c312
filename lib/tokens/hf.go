package tokens

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pretok"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/ifkit/ifkit/lib/ucd"
	"golang.org/x/text/unicode/norm"
)

// HF is a BPE tokenizer loaded from a Hugging Face tokenizer.json: the
// byte-level BPE of GPT-2, Llama 3, Qwen, DeepSeek and gpt-oss, and the
// SentencePiece-style BPE with byte fallback of Llama 2 and Gemma. It runs
// the file's added tokens, normalizer, pre-tokenizer and model as the Rust
// tokenizers library does (tests/tokenizers checks it id for id against
// the library on real files); the post-processor (BOS/EOS) is left out, so
// a count is the text's tokens without the special tokens a server adds
// around a prompt. A setting it does not implement is refused by name
// (docs/infer-batch.md lists them), never ignored.
//
// The pure-Go packages that load tokenizer.json (github.com/sugarme/tokenizer)
// split with RE2, which cannot run the look-ahead in Llama 3's and Qwen's
// pre-tokenizer pattern, and have no BPE byte fallback, so their counts differ
// from the server's; patterns here run on lib/pretok, which follows the
// library's engine.
type HF struct {
	vocab     map[string]int
	inverse   map[int]string
	merges    map[uint64]uint64 // left<<32 | right → rank<<32 | merged
	added     *addedSet         // matched on the raw text
	addedNorm *addedSet         // matched on the normalized text
	addedIDs  map[string]int
	normalize func(string, pretok.Limit) (string, error)
	pre       []preStep
	unk       int // -1: none
	fuseUnk   bool
	fallback  bool
	byteIDs   [256]int // the byte-fallback token of each byte; -1: none
	ignoreMrg bool
	byteLevel bool   // pieces are mapped to GPT-2's byte alphabet
	space     string // what stands for a space in tokens ("▁"), "" if none
	prefixed  bool   // a space is put before the text (decode removes it)

	words  pieceCache // the BPE of short pieces
	counts textCounts
}

type hfModel struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ByteFallback            bool            `json:"byte_fallback"`
	FuseUnk                 bool            `json:"fuse_unk"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	Dropout                 *float64        `json:"dropout"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
}

type hfFile struct {
	AddedTokens  []addedToken    `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        hfModel         `json:"model"`
}

// MaxFileSize bounds a tokenizer.json (the largest of current models',
// Gemma 3's, is 33 MB): a larger file, or a device such as /dev/zero, is
// refused rather than read into memory.
const MaxFileSize = 256 << 20

// LoadHF reads a tokenizer.json.
func LoadHF(path string) (*HF, error) {
	b, err := stream.ReadFileMax(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	return ParseHF(b)
}

// ParseHF builds a tokenizer from the bytes of a tokenizer.json.
func ParseHF(b []byte) (*HF, error) {
	var f hfFile
	if err := json.Unmarshal(b, &f); err != nil {
		var probe struct {
			Model struct {
				Type string `json:"type"`
			} `json:"model"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.Model.Type != "" && probe.Model.Type != "BPE" {
			return nil, unsupportedModel(probe.Model.Type)
		}
		return nil, fmt.Errorf("not a tokenizer.json: %v", err)
	}
	m := &f.Model
	if m.Type != "BPE" && !(m.Type == "" && m.Merges != nil) {
		return nil, unsupportedModel(m.Type)
	}
	if (m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "") || (m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "") {
		return nil, fmt.Errorf("BPE with continuing_subword_prefix or end_of_word_suffix is not supported")
	}
	if m.Dropout != nil && *m.Dropout > 0 {
		return nil, fmt.Errorf("BPE dropout %g is refused: it makes each count random, so no count would be the server's", *m.Dropout)
	}
	var vocab map[string]int
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("model.vocab: want an object of token ids")
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("model.vocab is empty")
	}
	h := &HF{vocab: vocab, inverse: make(map[int]string, len(vocab)+len(f.AddedTokens)), merges: map[uint64]uint64{},
		addedIDs: map[string]int{}, unk: -1, fuseUnk: m.FuseUnk, fallback: m.ByteFallback, ignoreMrg: m.IgnoreMerges,
		added: newAddedSet(), addedNorm: newAddedSet()}
	for t, id := range vocab {
		h.inverse[id] = t
	}
	for b := range h.byteIDs {
		h.byteIDs[b] = -1
		if id, ok := vocab[byteToken[b]]; ok {
			h.byteIDs[b] = id
		}
	}
	if m.UnkToken != nil {
		id, ok := vocab[*m.UnkToken]
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
		a, okA := vocab[p[0]]
		b, okB := vocab[p[1]]
		ab, okAB := vocab[p[0]+p[1]]
		if !okA || !okB || !okAB {
			return nil, fmt.Errorf("merge %d (%q %q) uses a token missing from the vocabulary", rank, p[0], p[1])
		}
		k := uint64(a)<<32 | uint64(b)
		if _, dup := h.merges[k]; !dup {
			h.merges[k] = uint64(rank)<<32 | uint64(ab)
		}
	}
	if h.normalize, err = h.normalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %v", err)
	}
	if h.pre, err = h.preTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %v", err)
	}
	// The library's order: the special tokens, then the others; a token is
	// matched on the normalized text when "normalized" says so.
	for _, special := range []bool{true, false} {
		for i := range f.AddedTokens {
			t := &f.AddedTokens[i]
			if t.Special != special || t.Content == "" {
				continue
			}
			h.addedIDs[t.Content] = t.ID
			h.inverse[t.ID] = t.Content
			if t.Normalized == nil && !t.Special || t.Normalized != nil && *t.Normalized {
				content, err := h.normalize(t.Content, pretok.Limit{})
				if err != nil {
					return nil, fmt.Errorf("added token %q: %v", t.Content, err)
				}
				h.addedNorm.add(content, t)
			} else {
				h.added.add(t.Content, t)
			}
		}
	}
	return h, nil
}

func unsupportedModel(typ string) error {
	return fmt.Errorf("model type %q is not supported: only BPE tokenizers are (Unigram, as in T5 and mT5, WordPiece and WordLevel are not)", typ)
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
	// CharDelimiterSplit
	Delimiter string `json:"delimiter"`
}

// normalizers lists the normalizer types ParseHF honours.
const normalizers = "NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Prepend, Replace, Sequence"

func (h *HF) normalizer(raw json.RawMessage) (func(string, pretok.Limit) (string, error), error) {
	plain := func(f func(string) string) func(string, pretok.Limit) (string, error) {
		return func(s string, _ pretok.Limit) (string, error) { return f(s), nil }
	}
	if len(raw) == 0 || string(raw) == "null" {
		return plain(func(s string) string { return s }), nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	switch c.Type {
	case "NFC", "NFD", "NFKC", "NFKD":
		f := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}[c.Type]
		return plain(func(s string) string { return unicodeNormalize(f, s) }), nil
	case "Lowercase":
		// Rust's char::to_lowercase on each character: İ becomes
		// "i̇", and Σ σ wherever it is.
		return plain(rustUnicode.LowerString), nil
	case "StripAccents":
		return plain(stripAccents), nil
	case "Strip":
		return plain(func(s string) string {
			if c.Left {
				s = strings.TrimLeftFunc(s, ucd.IsWhiteSpace)
			}
			if c.Right {
				s = strings.TrimRightFunc(s, ucd.IsWhiteSpace)
			}
			return s
		}), nil
	case "Prepend":
		h.prefixed = true
		h.noteSpace(c.Prepend)
		return plain(func(s string) string {
			if s == "" {
				return s
			}
			return c.Prepend + s
		}), nil
	case "Replace":
		if c.Pattern.String != nil {
			old := *c.Pattern.String
			if old == " " {
				h.noteSpace(c.Content)
			}
			if old == "" {
				return nil, fmt.Errorf("Replace of an empty string")
			}
			return plain(func(s string) string { return strings.ReplaceAll(s, old, c.Content) }), nil
		}
		if c.Pattern.Regex == nil {
			return nil, fmt.Errorf("Replace without a pattern")
		}
		re, err := pretok.Compile(*c.Pattern.Regex)
		if err != nil {
			return nil, err
		}
		return func(s string, lim pretok.Limit) (string, error) {
			var b strings.Builder
			last := 0
			err := re.FindAll(s, lim, func(a, e int) {
				b.WriteString(s[last:a])
				b.WriteString(c.Content)
				last = e
			})
			b.WriteString(s[last:])
			return b.String(), err
		}, nil
	case "Sequence":
		var fs []func(string, pretok.Limit) (string, error)
		for _, n := range c.Normalizers {
			f, err := h.normalizer(n)
			if err != nil {
				return nil, err
			}
			fs = append(fs, f)
		}
		return func(s string, lim pretok.Limit) (string, error) {
			var err error
			for _, f := range fs {
				if s, err = f(s, lim); err != nil {
					return "", err
				}
			}
			return s, nil
		}, nil
	}
	return nil, fmt.Errorf("type %q is not supported (supported: %s)", c.Type, normalizers)
}

func (h *HF) noteSpace(s string) {
	if s != "" && s != " " && strings.TrimSpace(s) != "" {
		h.space = strings.TrimSpace(s)
	}
}

// TimeLimit bounds the work of tokenizing one text with a tokenizer.json:
// a pre-tokenizer pattern that backtracks catastrophically stops with an
// error instead of holding a run. Real files take milliseconds for a 455 KB
// prompt.
var TimeLimit = 10 * time.Second

// encode runs the added tokens, the normalizer, the pre-tokenizer and the
// BPE model on s.
func (h *HF) encode(ctx context.Context, s string, out []int) ([]int, error) {
	lim := pretok.Limit{Ctx: ctx}
	if TimeLimit > 0 {
		lim.Deadline = time.Now().Add(TimeLimit)
	}
	s = validText(s)
	var raw, normed []segment
	raw = h.added.split(s, raw)
	for _, seg := range raw {
		if seg.tok != nil {
			out = append(out, seg.tok.ID)
			continue
		}
		n, err := h.normalize(seg.text, lim)
		if err != nil {
			return nil, h.limitError(err, len(s))
		}
		normed = h.addedNorm.split(n, normed[:0])
		for _, sub := range normed {
			if sub.tok != nil {
				out = append(out, sub.tok.ID)
				continue
			}
			pieces := []piece{{text: sub.text, first: seg.start == 0 && sub.start == 0}}
			for _, step := range h.pre {
				if pieces, err = step(pieces, lim); err != nil {
					return nil, h.limitError(err, len(s))
				}
			}
			for _, p := range pieces {
				out = h.word(p.text, out)
			}
		}
	}
	return out, nil
}

func (h *HF) limitError(err error, n int) error {
	if errors.Is(err, pretok.ErrTimeout) {
		return fmt.Errorf("%w on a text of %d bytes (the limit is %v a text): the pattern backtracks catastrophically", err, n, TimeLimit)
	}
	return err
}

// word appends the BPE of one piece, cached for short pieces.
func (h *HF) word(p string, out []int) []int {
	if p == "" {
		return out
	}
	if h.ignoreMrg {
		if id, ok := h.vocab[p]; ok {
			return append(out, id)
		}
	}
	if len(p) > 64 {
		return append(out, h.bpe(p)...)
	}
	ids, ok := h.words.get(p)
	if !ok {
		ids = h.bpe(p)
		h.words.put(p, ids)
	}
	return append(out, ids...)
}

// bpe merges the characters of p by rank, lowest first and leftmost among
// equals, as the tokenizers library does; a heap keeps it O(n log n) for a
// SentencePiece text that has no pre-tokenizer and is one long piece. A
// character not in the vocabulary becomes its byte-fallback tokens, else
// the unknown token (consecutive ones fused into one with fuse_unk).
func (h *HF) bpe(p string) []int {
	ids := make([]int32, 0, len(p))
	unk := false // an unknown token waits to be added
	for i := 0; i < len(p); {
		n := 1
		if p[i] >= utf8.RuneSelf {
			_, n = utf8.DecodeRuneInString(p[i:])
		}
		ch := p[i : i+n]
		i += n
		if id, ok := h.vocab[ch]; ok {
			if unk {
				ids = append(ids, int32(h.unk))
				unk = false
			}
			ids = append(ids, int32(id))
			continue
		}
		if h.fallback && h.hasBytes(ch) {
			// The library adds the bytes before a waiting unknown token.
			for j := 0; j < len(ch); j++ {
				ids = append(ids, int32(h.byteIDs[ch[j]]))
			}
			continue
		}
		if h.unk >= 0 {
			if unk && !h.fuseUnk {
				ids = append(ids, int32(h.unk))
			}
			unk = true
		}
	}
	if unk {
		ids = append(ids, int32(h.unk))
	}
	return h.mergeAll(ids)
}

// mergeAll applies the merges to a word's symbols. Symbols are named by
// their first position; next and prev link the ones left. The heap holds
// rank<<32 | position, so it pops the lowest rank, then the leftmost; an
// entry whose pair has since changed is skipped.
func (h *HF) mergeAll(ids []int32) []int {
	n := len(ids)
	if n < 2 {
		out := make([]int, n)
		for i, id := range ids {
			out[i] = int(id)
		}
		return out
	}
	next := make([]int32, n)
	prev := make([]int32, n)
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	next[n-1] = -1
	rule := func(i int32) (uint64, bool) {
		j := next[i]
		if j < 0 {
			return 0, false
		}
		r, ok := h.merges[uint64(uint32(ids[i]))<<32|uint64(uint32(ids[j]))]
		return r, ok
	}
	var q mergeHeap
	for i := range int32(n) {
		if r, ok := rule(i); ok {
			q = append(q, r&^0xffffffff|uint64(i))
		}
	}
	q.init()
	gone := make([]bool, n)
	for len(q) > 0 {
		e := q.pop()
		i := int32(uint32(e))
		if gone[i] {
			continue
		}
		r, ok := rule(i)
		if !ok || r>>32 != e>>32 {
			continue // stale: a neighbour merged first
		}
		j := next[i]
		ids[i] = int32(uint32(r))
		gone[j] = true
		next[i] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = i
		}
		if p := prev[i]; p >= 0 {
			if r, ok := rule(p); ok {
				q.push(r&^0xffffffff | uint64(p))
			}
		}
		if r, ok := rule(i); ok {
			q.push(r&^0xffffffff | uint64(i))
		}
	}
	out := make([]int, 0, n)
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, int(ids[i]))
	}
	return out
}

func (h *HF) hasBytes(ch string) bool {
	for j := 0; j < len(ch); j++ {
		if h.byteIDs[ch[j]] < 0 {
			return false
		}
	}
	return true
}

// byteToken is the byte-fallback token of each byte: "<0x0A>".
var byteToken = func() (t [256]string) {
	for b := range t {
		t[b] = fmt.Sprintf("<0x%02X>", b)
	}
	return t
}()

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

// count is len(encode(s)), remembered for long texts by content.
func (h *HF) count(ctx context.Context, s string) (int, error) {
	if len(s) < minRemembered {
		ids, err := h.encode(ctx, s, nil)
		return len(ids), err
	}
	key, n, ok := h.counts.get(s)
	if ok {
		return n, nil
	}
	ids, err := h.encode(ctx, s, nil)
	if err == nil {
		h.counts.put(key, len(ids))
	}
	return len(ids), err
}
