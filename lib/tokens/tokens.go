// Package tokens counts tokens offline: with tiktoken's BPE vocabularies,
// which ship embedded in the binary (an estimate for any model but OpenAI's),
// or with a Hugging Face tokenizer.json the user names (exact for that
// model's text). Nothing is downloaded at run time.
package tokens

import (
	"fmt"
	"hash/maphash"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Default is the encoding LIFBench counts with.
const Default = "o200k_base"

// Names lists the embedded encodings.
var Names = []string{"o200k_base", "cl100k_base", "p50k_base", "r50k_base"}

var (
	setLoader sync.Once
	loader    = &ranksLoader{BpeLoader: tiktoken_loader.NewOfflineLoader(), loaded: map[string]map[string]int{}}
	mu        sync.Mutex
	encoders  = map[string]*Encoder{}
)

// ranksLoader is tiktoken-go's offline loader keeping the rank maps it
// loads (by file name), so that the hand-written o200k encoder shares
// tiktoken-go's 200k-entry map rather than loading a second. Get
// holds mu while tiktoken-go loads, which guards loaded.
type ranksLoader struct {
	tiktoken.BpeLoader
	loaded map[string]map[string]int
}

func (l *ranksLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	ranks, err := l.BpeLoader.LoadTiktokenBpe(file)
	if err == nil {
		l.loaded[path.Base(file)] = ranks
	}
	return ranks, err
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
	encode(s string) []int
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
		tk, err := tiktoken.GetEncoding(name)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w", name, err)
		}
		t := &tiktokenCodec{tk: tk, counts: map[uint64]int{}}
		if name == "o200k_base" {
			ranks, ok := loader.loaded[name+".tiktoken"]
			if !ok {
				return nil, fmt.Errorf("tokenizer %q: tiktoken-go loaded its ranks before this package set its loader", name)
			}
			t.fast = newO200k(ranks)
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

// chunk bounds the text handed to the BPE at once: tiktoken-go's merge loop is
// quadratic in the length of one regex piece (a long run of spaces or letters
// takes seconds). Cutting such runs changes counts only for pathological text.
const chunk = 4096

// Encode returns the token ids of s. With tiktoken, special-token text is
// ordinary text; a tokenizer.json's added tokens are matched, as servers do.
func (e *Encoder) Encode(s string) []int { return e.c.encode(s) }

type tiktokenCodec struct {
	tk   *tiktoken.Tiktoken
	fast *o200k // o200k_base without regexp2; nil for the other encodings

	mu     sync.Mutex
	counts map[uint64]int // chunk hash → tokens
}

func (t *tiktokenCodec) encode(s string) []int {
	if len(s) <= chunk {
		return t.encodeChunk(s, nil)
	}
	var out []int
	for len(s) > 0 {
		n := cut(s)
		out = t.encodeChunk(s[:n], out)
		s = s[n:]
	}
	return out
}

// encodeChunk appends tiktoken-go's Encode(c, nil, nil) to out.
func (t *tiktokenCodec) encodeChunk(c string, out []int) []int {
	if t.fast != nil {
		return t.fast.encode(c, out)
	}
	return append(out, t.tk.Encode(c, nil, nil)...)
}

func (t *tiktokenCodec) countChunk(c string) int {
	if t.fast != nil {
		return t.fast.count(c)
	}
	return len(t.tk.Encode(c, nil, nil))
}

func (t *tiktokenCodec) decode(ids []int) string { return t.tk.Decode(ids) }

// count is len(encode(s)) with each chunk's count remembered: the prompts of
// one benchmark share long stretches (LIFBench puts one context, cut into
// the same chunks, before every instruction of a length), and counting a
// 128k-token prompt costs the better part of a CPU-second.
func (t *tiktokenCodec) count(s string) int {
	n := 0
	for len(s) > 0 {
		k := cut(s)
		n += t.chunkCount(s[:k])
		s = s[k:]
	}
	return n
}

var chunkSeed = maphash.MakeSeed()

func (t *tiktokenCodec) chunkCount(c string) int {
	if len(c) < 512 {
		return t.countChunk(c) // cheaper than remembering
	}
	h := maphash.String(chunkSeed, c)
	t.mu.Lock()
	n, ok := t.counts[h]
	t.mu.Unlock()
	if ok {
		return n
	}
	n = t.countChunk(c)
	t.mu.Lock()
	if len(t.counts) >= 1<<16 {
		clear(t.counts)
	}
	t.counts[h] = n
	t.mu.Unlock()
	return n
}

// cut picks a split point at or before chunk, preferring a newline, then a
// space, and never inside a UTF-8 sequence.
func cut(s string) int {
	if len(s) <= chunk {
		return len(s)
	}
	for i := chunk; i > chunk/2; i-- {
		if s[i-1] == '\n' {
			return i
		}
	}
	for i := chunk; i > chunk/2; i-- {
		if s[i] == ' ' && s[i-1] != ' ' {
			return i
		}
	}
	i := chunk
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// Count returns the number of tokens in s.
func (e *Encoder) Count(s string) int {
	if t, ok := e.c.(*tiktokenCodec); ok {
		return t.count(s)
	}
	return len(e.Encode(s))
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
