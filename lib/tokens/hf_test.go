package tokens

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/pretok"
)

// The tokenizer.json files below are the project's own, a handful of tokens
// each: the results were worked out by hand from the BPE rules (lowest merge
// rank first, leftmost among equals).

func vocabOf(tokens ...string) map[string]int {
	v := map[string]int{}
	for _, t := range tokens {
		v[t] = len(v)
	}
	return v
}

// byteLevelJSON is GPT-2-style byte-level BPE; pre is its pre_tokenizer.
func byteLevelJSON(t *testing.T, pre string) []byte {
	t.Helper()
	v := vocabOf("h", "e", "l", "o", "Ġ", "w", "r", "d", "1", "2", "3", "4", "5", "Ã", "©",
		"he", "ll", "hell", "hello", "Ġw", "or", "Ġwor", "Ġworl", "Ġworld", "Ã©", "12")
	f := map[string]any{
		"added_tokens":  []map[string]any{{"id": 100, "content": "<|end|>", "special": true}},
		"normalizer":    nil,
		"pre_tokenizer": json.RawMessage(pre),
		"model": map[string]any{"type": "BPE", "vocab": v, "merges": []string{
			"h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "Ġwor l", "Ġworl d", "Ã ©", "1 2"}},
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sentencePieceJSON is Llama-2-style BPE: "▁" for spaces, byte fallback.
func sentencePieceJSON(t *testing.T) []byte {
	t.Helper()
	toks := []string{"<unk>", "<s>", "</s>"}
	for b := 0; b < 256; b++ {
		toks = append(toks, fmt.Sprintf("<0x%02X>", b))
	}
	toks = append(toks, "▁", "h", "e", "l", "o", "w", "r", "d",
		"▁h", "el", "▁hel", "lo", "▁hello", "▁w", "or", "▁wor", "ld", "▁world")
	f := map[string]any{
		"added_tokens": []map[string]any{{"id": 0, "content": "<unk>", "special": true}, {"id": 1, "content": "<s>", "special": true}, {"id": 2, "content": "</s>", "special": true}},
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"}}},
		"pre_tokenizer": nil,
		"model": map[string]any{"type": "BPE", "vocab": vocabOf(toks...), "unk_token": "<unk>", "byte_fallback": true, "fuse_unk": true,
			"merges": [][]string{{"▁", "h"}, {"e", "l"}, {"▁h", "el"}, {"l", "o"}, {"▁hel", "lo"}, {"▁", "w"}, {"o", "r"}, {"▁w", "or"}, {"l", "d"}, {"▁wor", "ld"}}},
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hfIDs is h's encoding of s, failing the test on an error.
func hfIDs(t testing.TB, h *HF, s string) []int {
	t.Helper()
	ids, err := h.encode(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func tokenStrings(h *HF, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = h.inverse[id]
	}
	return out
}

func TestHFByteLevel(t *testing.T) {
	h, err := ParseHF(byteLevelJSON(t, `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"hello world", []string{"hello", "Ġworld"}},
		// \s+(?!\S) leaves the last space of a run to the word after it.
		{"hello  world", []string{"hello", "Ġ", "Ġworld"}},
		{"hello<|end|>world", []string{"hello", "<|end|>", "w", "or", "l", "d"}},
		{"é", []string{"Ã©"}},
		{"hell", []string{"hell"}},
	} {
		ids := hfIDs(t, h, tc.in)
		if got := tokenStrings(h, ids); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("encode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := h.decode(ids); back != tc.in {
			t.Errorf("decode(encode(%q)) = %q", tc.in, back)
		}
	}
}

func TestHFSplitLookahead(t *testing.T) {
	// Llama 3's pattern, with the look-ahead RE2 cannot run.
	pre := `{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]}`
	h, err := ParseHF(byteLevelJSON(t, pre))
	if err != nil {
		t.Fatal(err)
	}
	pieces := []piece{{text: "hello  world 12345"}}
	for _, step := range h.pre {
		if pieces, err = step(pieces, pretok.Limit{}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, p := range pieces {
		got = append(got, p.text)
	}
	want := []string{"hello", "Ġ", "Ġworld", "Ġ", "123", "45"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pieces %q, want %q", got, want)
	}
	if got := tokenStrings(h, hfIDs(t, h, "12345")); !reflect.DeepEqual(got, []string{"12", "3", "4", "5"}) {
		t.Errorf("digits: %q", got)
	}
}

func TestHFSentencePiece(t *testing.T) {
	h, err := ParseHF(sentencePieceJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"hello world", []string{"▁hello", "▁world"}},
		// Unknown characters fall back to their UTF-8 bytes.
		{"hi é", []string{"▁h", "<0x69>", "▁", "<0xC3>", "<0xA9>"}},
		{"world</s>", []string{"▁world", "</s>"}},
	} {
		ids := hfIDs(t, h, tc.in)
		if got := tokenStrings(h, ids); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("encode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := h.decode(ids); back != tc.in {
			t.Errorf("decode(encode(%q)) = %q", tc.in, back)
		}
	}
	// One long piece (no pre-tokenizer) must stay fast: the merge heap.
	long := strings.TrimSpace(strings.Repeat("hello world ", 20000))
	if n := len(hfIDs(t, h, long)); n != 40000 {
		t.Errorf("long text: %d tokens, want 40000", n)
	}
}

func TestGetTokenizerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, sentencePieceJSON(t), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Get(path)
	if err != nil {
		t.Fatal(err)
	}
	if e.Label() != "hf:tokenizer.json" || !e.Exact || e.Count("hello world hello") != 3 {
		t.Errorf("label %q exact %v count %d", e.Label(), e.Exact, e.Count("hello world hello"))
	}
	if kept, total := e.DropLast("hello world hello", 1); kept != "hello world" || total != 3 {
		t.Errorf("DropLast = %q, %d", kept, total)
	}
	if MustGet(Default).Label() != "o200k_base~" {
		t.Errorf("the tiktoken default must be labelled an estimate: %q", MustGet(Default).Label())
	}
	for name, body := range map[string]string{
		"unigram.json":  `{"model":{"type":"Unigram","vocab":[["a",0]]}}`,
		"garbage.json":  `not json`,
		"badmerge.json": `{"model":{"type":"BPE","vocab":{"a":0},"merges":["a b"]}}`,
		"pretok.json":   `{"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`,
	} {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := Get(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Get(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("a missing file was accepted")
	}
}

// A pattern that backtracks catastrophically stops at the time limit of
// one text, or when the context ends, with an error that says so.
func TestPatternTimeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	os.WriteFile(path, []byte(`{"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?:a+)+$"},"behavior":"Isolated"},"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]}}`), 0o644)
	e, err := Get(path)
	if err != nil {
		t.Fatal(err)
	}
	old := TimeLimit
	TimeLimit = 100 * time.Millisecond
	defer func() { TimeLimit = old }()
	text := strings.Repeat("a", 60) + "b"
	if _, err := e.CountContext(context.Background(), text); !errors.Is(err, pretok.ErrTimeout) || !strings.Contains(err.Error(), "backtracks catastrophically") {
		t.Errorf("time limit: %v", err)
	}
	TimeLimit = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.CountContext(ctx, text); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if n, err := e.CountContext(context.Background(), "aab"); err != nil || n != 3 {
		t.Errorf("a short text: %d, %v", n, err)
	}
}

// A tokenizer.json is read with a bound: /dev/zero is refused at once.
func TestTokenizerFileBounded(t *testing.T) {
	if _, err := Get("/dev/zero"); err == nil || !strings.Contains(err.Error(), "a device") {
		t.Errorf("/dev/zero: %v", err)
	}
	big := filepath.Join(t.TempDir(), "tokenizer.json")
	f, _ := os.Create(big)
	f.Truncate(MaxFileSize + 1) // sparse: nothing is written
	f.Close()
	if _, err := Get(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a file over the limit: %v", err)
	}
}
