package tokens

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pretok"
)

// hasAdded says whether s holds one of h's added tokens.
func hasAdded(h *HF, s string) bool {
	for _, seg := range h.added.split(s, nil) {
		if seg.tok != nil {
			return true
		}
	}
	return false
}

// Any text survives the SentencePiece fixture (byte fallback covers every
// byte): decoding its tokens gives the text back, and the count is stable.
func FuzzHFRoundTrip(f *testing.F) {
	b, err := os.ReadFile("testdata/tiny-sentencepiece.json")
	if err != nil {
		f.Fatal(err)
	}
	h, err := ParseHF(b)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", " ", "hello world", "  two  spaces ", "日本語 é\n\ttab", "<s>the</s>", "a<unk", "\xff\xfe broken", "the the the"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The space symbol itself decodes as a space, and the text after an
		// added token gets its own "▁" (as with the tokenizers library): both
		// decode to other text by design.
		if strings.Contains(s, "▁") || hasAdded(h, s) || !utf8.ValidString(s) {
			return
		}
		ids := hfIDs(t, h, s)
		if back := h.decode(ids); back != s {
			t.Fatalf("%q → %v → %q", s, ids, back)
		}
	})
}

// A tokenizer.json from anywhere is refused or loaded, never a panic, and a
// loaded one encodes and decodes any text.
func FuzzParseHF(f *testing.F) {
	b, _ := os.ReadFile("testdata/tiny-sentencepiece.json")
	f.Add(b, "hello")
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"pre_tokenizer":{"type":"ByteLevel"}}`), "abab")
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":0},"merges":[]},"pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\s+(?!\\S)"},"behavior":"MergedWithPrevious","invert":true}}`), "a a  a")
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"▁":0,"a":1},"merges":[]},"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true},"normalizer":{"type":"NFKC"}}`), "a ａ")
	f.Fuzz(func(t *testing.T, file []byte, text string) {
		h, err := ParseHF(file)
		if err != nil {
			return
		}
		ids, err := h.encode(context.Background(), text, nil)
		if err != nil && !errors.Is(err, pretok.ErrTimeout) {
			t.Fatal(err)
		}
		h.decode(ids)
	})
}
