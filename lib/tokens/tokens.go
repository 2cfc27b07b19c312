package tokens

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/ucd"
	"github.com/pkoukk/tiktoken-go"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Default is the encoding LIFBench counts with.
const Default = "o200k_base"

// Names lists the embedded encodings.
var Names = []string{"o200k_base", "cl100k_base", "p50k_base", "r50k_base"}

var (
	setLoader sync.Once
	loader    = &ranksLoader{loaded: map[string]map[string]int{}}
	mu        sync.Mutex
	encoders  = map[string]*Encoder{}
)

// ranksLoader reads the vocabularies tiktoken-go-loader embeds, once each:
// the hand-written o200k encoder and tiktoken-go (built later, for Decode)
// share one 200k-entry map. It parses the file itself: the offline loader's
// generic parse took 60 ms, and with tiktoken-go's own setup 150 ms that
// the first requests of a run waited for.
type ranksLoader struct {
	mu     sync.Mutex
	loaded map[string]map[string]int
}

func (l *ranksLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	name := path.Base(file)
	if r, ok := l.loaded[name]; ok {
		return r, nil
	}
	b, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, err
	}
	r, err := parseRanks(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	l.loaded[name] = r
	return r, nil
}

// parseRanks reads "base64(token) rank" lines. The tokens are decoded into
// one string, which the keys share: one allocation instead of 200k.
func parseRanks(b []byte) (map[string]int, error) {
	lines := bytes.Count(b, []byte{'\n'}) + 1
	ranks := make(map[string]int, lines)
	buf := make([]byte, 0, len(b)*3/4)
	type entry struct{ from, to, rank int }
	entries := make([]entry, 0, lines)
	for n := 1; len(b) > 0; n++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("line %d: no rank", n)
		}
		from := len(buf)
		buf = buf[:from+base64.StdEncoding.DecodedLen(sp)]
		k, err := base64.StdEncoding.Decode(buf[from:], line[:sp])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		buf = buf[:from+k]
		rank, err := strconv.Atoi(string(line[sp+1:]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		entries = append(entries, entry{from, from + k, rank})
	}
	all := string(buf)
	for _, e := range entries {
		ranks[all[e.from:e.to]] = e.rank
	}
	return ranks, nil
}

// Encoder counts, encodes and decodes with one vocabulary. It is safe for
// concurrent use; get it once per process with Get.
type Encoder struct {
	// Name is the encoding ("o200k_base") or "hf:" and the tokenizer.json's
	// file name.
	Name string
	// Exact is true for a model's own tokenizer (tokenizer.json): its counts
	// of a text are the server's. A tiktoken encoding is exact only for
	// OpenAI's models and is treated as an estimate.
	Exact bool
	c     codec
}

type codec interface {
	// encode appends the ids of s to out; only a tokenizer.json's patterns
	// can fail (ctx ended, or the time limit passed).
	encode(ctx context.Context, s string, out []int) ([]int, error)
	count(ctx context.Context, s string) (int, error)
	decode(ids []int) string
}

// Label is what response.tokenizer says counted a prompt: the name, with
// "~" appended when the count is an estimate.
func (e *Encoder) Label() string {
	if e.Exact {
		return e.Name
	}
	return e.Name + "~"
}

// Get returns the shared encoder for a tiktoken encoding name or the path
// of a Hugging Face tokenizer.json (building one costs ~0.5 s, once).
func Get(name string) (*Encoder, error) {
	if name == "" {
		name = Default
	}
	mu.Lock()
	defer mu.Unlock()
	if e, ok := encoders[name]; ok {
		return e, nil
	}
	var e *Encoder
	if IsEncoding(name) {
		setLoader.Do(func() { tiktoken.SetBpeLoader(loader) })
		t := &tiktokenCodec{name: name}
		if name == "o200k_base" {
			// Counting and encoding need only the ranks; tiktoken-go is
			// built on the first Decode.
			ranks, err := loader.LoadTiktokenBpe(name + ".tiktoken")
			if err != nil {
				return nil, fmt.Errorf("tokenizer %q: %w", name, err)
			}
			if t.fast, err = newO200k(ranks); err != nil {
				return nil, fmt.Errorf("tokenizer %q: %w", name, err)
			}
		} else if _, err := t.tiktoken(); err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w", name, err)
		}
		e = &Encoder{Name: name, c: t}
	} else {
		h, err := LoadHF(name)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w (want one of the embedded encodings %v or a tokenizer.json file)", name, err, Names)
		}
		e = &Encoder{Name: "hf:" + filepath.Base(name), Exact: true, c: h}
	}
	encoders[name] = e
	return e, nil
}

// IsEncoding says whether name is one of the embedded tiktoken encodings.
func IsEncoding(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// MustGet is Get for encodings known to be embedded.
func MustGet(name string) *Encoder {
	e, err := Get(name)
	if err != nil {
		panic(err)
	}
	return e
}

// Encode returns the token ids of s. With tiktoken, special-token text is
// ordinary text; a tokenizer.json's added tokens are matched, as servers do.
// Invalid UTF-8 is read as a server's JSON decoder reads it (validText). A
// tokenizer.json whose pattern runs past TimeLimit on s makes it panic:
// EncodeContext returns the error instead.
func (e *Encoder) Encode(s string) []int {
	ids, err := e.EncodeContext(context.Background(), s)
	if err != nil {
		panic(fmt.Sprintf("tokenizer %s: %v", e.Name, err))
	}
	return ids
}

// EncodeContext is Encode that stops when ctx ends or a tokenizer.json's
// pattern runs past TimeLimit, with the error.
func (e *Encoder) EncodeContext(ctx context.Context, s string) ([]int, error) {
	ids, err := e.c.encode(ctx, s, nil)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", e.Name, err)
	}
	return ids, nil
}

// Count returns the number of tokens in s; it panics where Encode does.
func (e *Encoder) Count(s string) int {
	n, err := e.CountContext(context.Background(), s)
	if err != nil {
		panic(err.Error())
	}
	return n
}

// CountContext is Count that stops when ctx ends or a tokenizer.json's
// pattern runs past TimeLimit, with the error.
func (e *Encoder) CountContext(ctx context.Context, s string) (int, error) {
	n, err := e.c.count(ctx, s)
	if err != nil {
		return 0, fmt.Errorf("tokenizer %s: %w", e.Name, err)
	}
	return n, nil
}

type tiktokenCodec struct {
	name  string
	tkSet sync.Once
	tk    *tiktoken.Tiktoken // by tiktoken(), on first use
	tkErr error
	fast  *o200k // o200k_base without regexp2; nil for the other encodings

	counts textCounts // of chunks
	quoted textCounts // of chunks of JSON strings (CountQuoted)
}

// chunk is the length from which counting cuts a text into chunks whose
// counts it remembers: the prompts of one benchmark share long stretches
// (LIFBench puts one context before every instruction of a length), and
// counting a 128k-token prompt costs the better part of a CPU-second.
const chunk = 4096

// longChunk bounds a chunk of the encodings tiktoken-go serves (all but
// o200k_base) when the text has no safe cut: tiktoken-go's merge is
// quadratic in the length of one piece (a long run of spaces or letters
// takes seconds), so such text is cut anyway, which can change its count
// by a token at each cut. o200k_base is never cut: its merge is O(n log n).
const longChunk = 4 * chunk

// safeCut is the first position at or after chunk bytes into s where the
// tiktoken patterns (o200k_base's, cl100k_base's, GPT-2's) must start a
// piece whatever came before, or len(s): right after a line feed that is
// followed by a character that is neither whitespace nor '/' (no
// alternative of the patterns continues past such a line feed: the
// whitespace ones end at it, o200k's punctuation one takes [\r\n/]* and
// stops there, and the word and number ones never hold it). The count of
// a text is the sum of its chunks' counts.
func safeCut(s string) int {
	for i := chunk; i < len(s); {
		j := strings.IndexByte(s[i-1:], '\n')
		if j < 0 {
			return len(s)
		}
		k := i - 1 + j + 1 // after the line feed
		if k >= len(s) {
			return len(s)
		}
		if r, _ := utf8.DecodeRuneInString(s[k:]); r != '/' && !isSpace(r) {
			return k
		}
		i = k + 1
	}
	return len(s)
}

// isSpace is \s of the tiktoken patterns: White_Space.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	return ucd.IsWhiteSpace(r)
}

// cut is where count and encode end the first chunk of s.
func (t *tiktokenCodec) cut(s string) int {
	n := safeCut(s)
	if t.fast == nil && n > longChunk {
		return forcedCut(s)
	}
	return n
}

func (t *tiktokenCodec) encode(_ context.Context, s string, out []int) ([]int, error) {
	s = validText(s)
	if t.fast != nil {
		t.fast.run(s, &out) // valid
		return out, nil
	}
	for len(s) > 0 {
		n := t.cut(s)
		out = append(out, t.tk.Encode(s[:n], nil, nil)...) // tk is built for the other encodings
		s = s[n:]
	}
	return out, nil
}

// countChunk counts c, valid UTF-8 unless t is o200k_base's.
func (t *tiktokenCodec) countChunk(c string) int {
	if t.fast != nil {
		return t.fast.countText(c)
	}
	return len(t.tk.Encode(c, nil, nil)) // tk is built for the other encodings
}

// tiktoken is tiktoken-go's encoder, built once (the ranks are shared).
func (t *tiktokenCodec) tiktoken() (*tiktoken.Tiktoken, error) {
	t.tkSet.Do(func() { t.tk, t.tkErr = tiktoken.GetEncoding(t.name) })
	return t.tk, t.tkErr
}

func (t *tiktokenCodec) decode(ids []int) string {
	tk, err := t.tiktoken()
	if err != nil {
		panic(fmt.Sprintf("tokenizer %q: %v", t.name, err)) // embedded, and its ranks loaded: cannot happen
	}
	return tk.Decode(ids)
}

// count is len(encode(s)) with each chunk's count remembered. The
// hand-written o200k_base checks its chunks' UTF-8 as it counts them
// (countText): a safe cut is after a line feed, which no ill-formed
// sequence holds, so the chunks of s are those of validText(s) but for
// the bytes replaced.
func (t *tiktokenCodec) count(_ context.Context, s string) (int, error) {
	if t.fast == nil {
		s = validText(s)
	}
	n := 0
	for len(s) > 0 {
		k := t.cut(s)
		n += t.chunkCount(s[:k])
		s = s[k:]
	}
	return n, nil
}

func (t *tiktokenCodec) chunkCount(c string) int {
	if len(c) < minRemembered {
		return t.countChunk(c)
	}
	h, n, ok := t.counts.get(c)
	if !ok {
		n = t.countChunk(c)
		t.counts.put(h, n)
	}
	return n
}

// forcedCut picks a split point at or before longChunk, preferring a
// newline, then a space, and never inside a UTF-8 sequence.
func forcedCut(s string) int {
	for i := longChunk; i > longChunk/2; i-- {
		if s[i-1] == '\n' {
			return i
		}
	}
	for i := longChunk; i > longChunk/2; i-- {
		if s[i] == ' ' && s[i-1] != ' ' {
			return i
		}
	}
	i := longChunk
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// Decode turns token ids back into text.
func (e *Encoder) Decode(ids []int) string { return e.c.decode(ids) }

// DropLast removes the last n tokens of s, returning what is left and how
// many tokens s had. A cut can split a multi-byte character across tokens;
// the broken tail is dropped rather than written as invalid UTF-8.
func (e *Encoder) DropLast(s string, n int) (string, int) {
	ids := e.Encode(s)
	if n >= len(ids) {
		return "", len(ids)
	}
	return strings.ToValidUTF8(e.Decode(ids[:len(ids)-n]), ""), len(ids)
}
