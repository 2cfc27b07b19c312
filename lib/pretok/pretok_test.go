package pretok

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
)

func matches(t testing.TB, re *Regexp, s string) []string {
	t.Helper()
	var out []string
	if err := re.FindAll(s, Limit{}, func(a, b int) { out = append(out, s[a:b]) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// What Oniguruma finds, as the tokenizers library (npm tokenizers 0.23.2)
// reports it through a Split pre-tokenizer with behavior Removed.
func TestOniguruma(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		want          []string
	}{
		{`\s+`, "a\u3000\u0085\x1c\u200b\u00a0\u180e b", []string{"\u3000\u0085", "\u00a0", " "}},
		{`\d+`, "1١𝟗²٣", []string{"1١𝟗", "٣"}},
		{`\w+`, "aé_1١²\u0301\u200d·-x", []string{"aé_1١²\u0301", "x"}},
		{`.`, "a\nb", []string{"a", "b"}},
		{`^a`, "a\na", []string{"a", "a"}},
		{`a$`, "a\na", []string{"a", "a"}},
		{`\Aa`, "a\na", []string{"a"}},
		{`a\z`, "a\na", []string{"a"}},
		{`a\Z`, "a\na\n", []string{"a"}},
		{`(?i:'s)`, "'S'ſ'K", []string{"'S", "'ſ"}},
		{`(?i:k)`, "kK\u212a", []string{"k", "K", "\u212a"}},
		{`(?i:[^a])+`, "AbB", []string{"bB"}},
		{`(?i)\p{Lu}+`, "aB", []string{"B"}},
		{`(?i:[a-c])+`, "ABCd", []string{"ABC"}},
		{`\p{^L}+`, "ab12c", []string{"12"}},
		{`\h+`, "ab 12c", []string{"ab", "12c"}},
		{`a{,2}`, "aaaa", []string{"aa", "aa"}},
		{`a{2}`, "aaa", []string{"aa"}},
		{`a{2,}?`, "aaaa", []string{"aa", "aa"}},
		{`\x{41}\u0042`, "AB", []string{"AB"}},
		{`(?<=a)b`, "abcb", []string{"b"}},
		{`a++`, "aaa", []string{"aaa"}},
		{`(?>a+)b`, "aaab", []string{"aaab"}},
		{`\p{Ll}+`, "aſß", []string{"aſß"}},
		{`\p{Lowercase_Letter}+`, "αβA1", []string{"αβ"}},
		{`\p{Letter}+`, "αβa1", []string{"αβa"}},
		{`\p{White_Space}+`, " a", []string{" "}},
		{`\bab`, "ab xab ab", []string{"ab", "ab"}},
		{`a|ab`, "ab", []string{"a"}},
		{`a(?=b)`, "abac", []string{"a"}},
		{`[^\s\p{L}]+`, "ab 12", []string{"12"}},
		{`\p{Assigned}+`, "a\u0378b", []string{"a", "b"}},
		{`[]a]+`, "]a", []string{"]a"}},
		{`[a-]+`, "-a", []string{"-a"}},
		{`a{`, "a{", []string{"a{"}},
		{`\cA\0\01\e\a`, "\x01\x00\x01\x1b\x07", []string{"\x01\x00\x01\x1b\x07"}},
		// Unicode 16.0's classes: Garay digits and a 16.0 capital.
		{`\p{N}+`, "x\U00010D40\U00010D41y", []string{"\U00010D40\U00010D41"}},
		{`\p{Lu}`, "\u1c89\u1c8a", []string{"\u1c89"}},
		{`\p{L}`, "\ua7ce", nil}, // 17.0
		// Empty matches, and none right after a match.
		{`a*`, "baab", []string{"", "aa", ""}},
		{`x*`, "ab", []string{"", "", ""}},
	} {
		re, err := Compile(tc.pattern)
		if err != nil {
			t.Errorf("%q: %v", tc.pattern, err)
			continue
		}
		if got := matches(t, re, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%q on %q: %q, want %q", tc.pattern, tc.text, got, tc.want)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, p := range []string{`(a)\1`, `[[:alpha:]]`, `(?x) a`, `[a-z&&[^c]]`, `\X`, `\R`, `\p{Greek}`, `(?<=a+)b`, `(`, `)`, `[a`, `*a`, `\Q.\E`, `a\`} {
		if _, err := Compile(p); err == nil {
			t.Errorf("%q compiled: an unsupported construct must be refused", p)
		}
	}
}

// Real pre-tokenizer patterns find what regexp2 finds on text where the
// two engines agree by design: characters whose category is the same in
// Go's Unicode 15.0 and in 16.0, no case folding beyond ASCII, no \w.
func TestRealPatternsAgainstRegexp2(t *testing.T) {
	patterns := []string{
		// Llama 3, Qwen 2/3 (\p{N} alone), o200k/gpt-oss, GPT-2 (ByteLevel), DeepSeek-V3's third.
		`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
		"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
		`[一-龥぀-ゟ゠-ヿ]+`,
		`\p{N}{1,3}`,
		`(a|ab)(c|bcd)(d*)`,
		`(?:x+x+)+y`,
	}
	alphabet := []string{"a", "b", "c", "d", "x", "y", "s", "S", "t", "r", "e", "E", "v", "m", "L", "l", "'", "'", "A", "Z",
		" ", " ", " ", "\t", "\n", "\r", "\u00a0", "\u3000", "1", "2", "٣", "½", "Ⅻ", ".", "!", "/", "-", "_", "[", "`",
		"é", "É", "ǅ", "ʰ", "あ", "ア", "日", "本", "\u0301", "\u0903", "😀", "𝐀", "한", "ß", "İ"}
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range patterns {
		ours := MustCompile(p)
		ref := regexp2.MustCompile(p, regexp2.None)
		for range 3000 {
			var b strings.Builder
			for range 1 + r.IntN(30) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			s := b.String()
			var want []string
			m, _ := ref.FindStringMatch(s)
			for ; m != nil; m, _ = ref.FindNextMatch(m) {
				want = append(want, m.String())
			}
			if got := matches(t, ours, s); !slices.Equal(got, want) {
				t.Fatalf("%q on %q:\n got %q\nwant %q (regexp2)", p, s, got, want)
			}
		}
	}
}

// A pattern that backtracks catastrophically stops at the time limit, or
// when its context ends, with an error.
func TestLimits(t *testing.T) {
	re := MustCompile(`(?:a+)+$`)
	s := strings.Repeat("a", 40) + "b"
	err := re.FindAll(s, Limit{Deadline: time.Now().Add(50 * time.Millisecond)}, func(int, int) {})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("deadline: %v, want ErrTimeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := re.FindAll(s, Limit{Ctx: ctx}, func(int, int) {}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

// Any pattern compiles or is refused, and a compiled one matches any text
// without a panic (within a step budget).
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`\s+(?!\S)`, `[^\r\n\p{L}\p{N}]?\p{L}+`, `(?i:'s|'t)`, `(?<=ab|c)d`, `a{2,3}?`, `[[a-z]x]`, `(?>a|ab)c`, `\b\B^$\A\z\Z`} {
		f.Add(s, "abc 'S  12\n")
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		re, err := Compile(p)
		if err != nil {
			return
		}
		s = strings.ToValidUTF8(s, "\ufffd")
		last := -1
		err = re.FindAll(s, Limit{Deadline: time.Now().Add(time.Second)}, func(a, b int) {
			if a < last || b < a || b > len(s) {
				t.Fatalf("%q on %q: match %d-%d after %d", p, s, a, b, last)
			}
			last = b
		})
		if err != nil && !errors.Is(err, ErrTimeout) {
			t.Fatal(err)
		}
	})
}
