package tokens

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/dlclark/regexp2"
)

// o200kPattern is tiktoken-go's o200k_base pattern (encoding.go), which it
// compiles with regexp2.None: the reference the hand-written splitter is
// checked against.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
	`|\s*[\r\n]+` +
	`|\s+(?!\S)` +
	`|\s+`

var o200kRegexp = regexp2.MustCompile(o200kPattern, regexp2.None)

func regexpPieces(s string) []string {
	var out []string
	m, _ := o200kRegexp.FindStringMatch(validText(s))
	for m != nil {
		out = append(out, m.String())
		m, _ = o200kRegexp.FindNextMatch(m)
	}
	return out
}

func handPieces(s string) []string {
	o := MustGet("o200k_base").c.(*tiktokenCodec).fast
	var out []string
	s = validText(s)
	for p := 0; p < len(s); {
		e := o.piece(s, p)
		out = append(out, s[p:e])
		p = e
	}
	return out
}

func fastO200k(t testing.TB) (*tiktokenCodec, *o200k) {
	t.Helper()
	c := MustGet("o200k_base").c.(*tiktokenCodec)
	if c.fast == nil {
		t.Fatal("o200k_base has no hand-written encoder")
	}
	if _, err := c.tiktoken(); err != nil { // c.tk, the reference
		t.Fatal(err)
	}
	return c, c.fast
}

func TestO200kPieces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		// Upper run then lower run, with the leading character.
		{"(CamelCase) HTTPServer", []string{"(Camel", "Case", ")", " HTTPServer"}},
		// All capitals: the first alternative fails, the second takes them.
		{"NASA GOES", []string{"NASA", " GOES"}},
		// Contractions in any case, and only after letters.
		{"I'M he'S they'll WE'LL it'd you'Re 'sup x'q", []string{"I'M", " he'S", " they'll", " WE'LL", " it'd", " you'Re", " '", "sup", " x", "'q"}},
		// Lo is both upper and lower: the lower run starts at the last one.
		{"日本語のテキスト", []string{"日本語のテキスト"}},
		{"Aあ", []string{"Aあ"}},
		// A combining mark alone is a word of its own; after a letter it joins it.
		{"e\u0301t\u0301 \u0301", []string{"e\u0301t\u0301", " \u0301"}},
		// Digits in threes, never with a leading space.
		{"1234567 89", []string{"123", "456", "7", " ", "89"}},
		// Punctuation takes one leading space and trailing line breaks and slashes.
		{"a !!\n/\nb", []string{"a", " !!\n/\n", "b"}},
		// Whitespace up to its last line break, and the last space goes to the next piece.
		{"x \t\n \r\n  y", []string{"x", " \t\n \r\n", " ", " y"}},
		{"a   ", []string{"a", "   "}},
		{"a  \u00a0b", []string{"a", "  ", "\u00a0b"}},
		{"\u3000\u2028 \u0085z", []string{"\u3000\u2028 ", "\u0085z"}},
		{"word\u00a0\u00a0", []string{"word", "\u00a0\u00a0"}},
		// Invalid UTF-8: each maximal ill-formed sequence is one U+FFFD,
		// like any other symbol.
		{"a\xff\xfeb", []string{"a", "\ufffd\ufffd", "b"}},
		{"\xe6\x97 日", []string{"\ufffd", " 日"}},
		{"\xed\xa0\x80x", []string{"\ufffd\ufffd\ufffd", "x"}},
	} {
		if got := handPieces(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("pieces of %q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if re := regexpPieces(tc.in); !slices.Equal(re, tc.want) {
			t.Errorf("regexp2's pieces of %q are %q: the table is wrong", tc.in, re)
		}
	}
}

// goClassify is classify with Go's unicode tables (Unicode 15.0 for Go
// 1.26), which tiktoken-go's regexp2 uses.
func goClassify(r rune) runeClass {
	var c runeClass
	switch {
	case unicode.IsLetter(r):
		c = cLetter
		switch {
		case unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r):
			c |= cUpper
		case unicode.Is(unicode.Ll, r):
			c |= cLower
		default:
			c |= cUpper | cLower
		}
	case unicode.Is(unicode.M, r):
		c = cUpper | cLower
	case unicode.Is(unicode.N, r):
		c = cNumber
	}
	if unicode.IsSpace(r) {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cNewline
	}
	return c
}

// tiktokenGoAgrees says whether tiktoken-go must split s as OpenAI's
// tiktoken does: every rune is classified alike by Go's tables and by
// Unicode 16.0, and no contraction is spelled with ſ (regexp2 folds case
// with unicode.ToLower, and ſ lowers to itself). tiktoken-go shares Go's
// tables, so comparing with it cannot see the Unicode version:
// TestO200kUnicode16 and tests/tokenizers (against tiktoken itself) do.
func tiktokenGoAgrees(s string) bool {
	for _, r := range validText(s) {
		if classify(r) != goClassify(r) {
			return false
		}
	}
	return !strings.Contains(s, "'ſ")
}

// The hand-written encoder gives tiktoken-go's pieces and ids on any text
// where tiktoken-go agrees with tiktoken (tiktokenGoAgrees).
func FuzzO200kEqualsTiktoken(f *testing.F) {
	c, fast := fastO200k(f)
	for _, s := range o200kSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Count and Encode hand the encoder chunks of at most chunk bytes,
		// and tiktoken-go's merge is quadratic in a piece's length: a long
		// input would stall the fuzzer for minutes.
		if len(s) > chunk {
			s = s[:chunk]
		}
		if !tiktokenGoAgrees(s) {
			return
		}
		if got, want := handPieces(s), regexpPieces(s); !slices.Equal(got, want) {
			t.Fatalf("pieces of %q:\n got %q\nwant %q", s, got, want)
		}
		want := c.tk.Encode(validText(s), nil, nil)
		if got := fast.encode(s, nil); !slices.Equal(got, want) {
			t.Fatalf("ids of %q:\n got %v\nwant %v", s, got, want)
		}
		if got := fast.count(s); got != len(want) {
			t.Fatalf("count of %q: %d, want %d", s, got, len(want))
		}
		if got := fast.countText(s); got != len(want) {
			t.Fatalf("countText of %q: %d, want %d", s, got, len(want))
		}
	})
}

// Random strings over runes of every class the pattern tells apart (cased
// letters, contraction letters, Lt, Lm, Lo, the three kinds of mark and of
// number, each kind of whitespace, invalid bytes) meet the backtracking
// cases far more often than the fuzzer's mutations do.
func TestO200kRandomRuneMix(t *testing.T) {
	c, fast := fastO200k(t)
	alphabet := []string{
		"a", "z", "s", "S", "t", "T", "r", "R", "e", "E", "v", "V", "m", "M", "l", "L", "d", "D", "'", "'",
		"É", "é", "ǅ", "ʰ", "あ", "日", "\u0301", "\u0903", "\u20dd", "7", "٣", "Ⅻ", "½",
		" ", " ", " ", "\t", "\n", "\r", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u3000", "\u200b", "\ufeff",
		"/", "!", ".", "😀", "𝐀", "𝐚", "\xff", "\xe6\x97", "\x00",
	}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		for range 1 + r.IntN(24) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := handPieces(s), regexpPieces(s); !slices.Equal(got, want) {
			t.Fatalf("pieces of %q:\n got %q\nwant %q", s, got, want)
		}
		if got, want := fast.encode(s, nil), c.tk.Encode(validText(s), nil, nil); !slices.Equal(got, want) {
			t.Fatalf("ids of %q:\n got %v\nwant %v", s, got, want)
		}
	}
}

// The heap merge of long pieces gives the scan's tokens.
func TestO200kMergeLongEqualsScan(t *testing.T) {
	_, fast := fastO200k(t)
	r := rand.New(rand.NewPCG(3, 4))
	alphabets := []string{"abcdefghijklmnopqrstuvwxyz", "aab ", " ", "ab\n \t", "日本語のテキスト", "0123456789", "\x00\x80\xff\xe3\x81"}
	for k := range 3000 {
		a := alphabets[k%len(alphabets)]
		b := make([]byte, 1+r.IntN(300))
		for i := range b {
			b[i] = a[r.IntN(len(a))]
		}
		piece := string(b)
		if got, want := fast.mergeLong(piece, nil, &merger{}), fast.mergeScan(piece, nil); !slices.EqualFunc(got, want, func(x, y bpePart) bool { return x.start == y.start }) {
			t.Fatalf("merges of %q:\n heap %v\n scan %v", piece, got, want)
		}
	}
}

// Merging in segments cut where no token spans gives the scan's tokens,
// on pieces of CJK, emoji, other scripts and bytes, with the ASCII that
// sits between them, and on pieces made of pieces of non-ASCII tokens
// (which span the cuts in every way there is); it fails if any one check
// of spanned is left out, or if the memo of segments answers for another.
func TestO200kCutsChangeNothing(t *testing.T) {
	_, fast := fastO200k(t)
	ranks, err := loader.LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	var fragments []string
	for tok := range ranks {
		if len(tok) > 2 && strings.ContainsFunc(tok, func(r rune) bool { return r >= utf8.RuneSelf }) {
			fragments = append(fragments, tok)
		}
	}
	slices.Sort(fragments)
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		tok := fragments[r.IntN(len(fragments))]
		i := r.IntN(len(tok))
		fragments = append(fragments, tok[i:i+1+r.IntN(len(tok)-i)])
	}
	alphabets := [][]string{
		fragments,
		strings.Split("日本語のテキスト東京都中文字符测试数据模型漢字ひらがなカタカナ한국어단어", ""),
		{"😀", "👍", "🏽", "\u200d", "\ufe0f", "🇯", "🇵", "👨", "👩", "👧", "✈", "★", "🤖", "🏳", "🌈", "1", "\u20e3"},
		strings.Split("مرحبا كتاب Привет мир ΑΘΗΝΑ हिन्दी ภาษาไทย abc", ""),
		{"\x80", "\xe3", "\x81", "\xff", "\xf0\x9f", "\xe6\x97", "a", " ", "日"},
	}
	var m merger // one for all pieces, as in a text, so that its memo of segments is used
	for k := range 20000 {
		a := alphabets[k%len(alphabets)]
		var b strings.Builder
		for range 1 + r.IntN(60) {
			b.WriteString(a[r.IntN(len(a))])
		}
		piece := b.String()
		starts := func(p []bpePart) []int {
			var s []int
			for _, x := range p {
				s = append(s, x.start)
			}
			return s
		}
		if got, want := starts(fast.merge(piece, nil, &m)), starts(fast.mergeScan(piece, nil)); !slices.Equal(got, want) {
			t.Fatalf("merges of %q:\n cut %v\nscan %v", piece, got, want)
		}
	}
}

// Every o200k_base token merges from its bytes to itself, which lets merge
// take a segment that is a token for one.
func TestO200kTokensMergeToThemselves(t *testing.T) {
	_, fast := fastO200k(t)
	ranks, err := loader.LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	for tok := range ranks {
		if parts := fast.mergeScan(tok, nil); len(parts) != 2 {
			t.Fatalf("%q merges to %d tokens", tok, len(parts)-1)
		}
	}
}

var o200kSeeds = []string{
	"",
	"The committee's report, published on Tuesday, didn't say much.\nIt'll be discussed again.",
	"SHE'S HERE. They'RE late; WE'VE 'em. I'D know. You'Ll see 'LL",
	"func main() {\n\tfmt.Println(\"hi\") // comment\r\n\tx := a[i]/b[j]\n}\n",
	"https://example.org/a/b?c=d&e=f#g //path/ \\\\server\\share",
	"東京都は日本の首都です。人口は約1400万人。",
	"مرحبا بالعالم، هذا نص عربي قصير.",
	"Привет, мир! Ёлка и ЁЖИК.",
	"emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇯🇵🇫🇷 ✈️",
	"cafe\u0301 nai\u0308ve \u0301\u0302 e\u20dd A\u0308B\u0308c",
	"123456789012 3.14159 1,000,000 ١٢٣٤ ⅫⅣ ½¼ ²³",
	"   \t\t\n\n\r\n \r\r  \n  x  \n",
	"a\u00a0b\u2028c\u3000d\u0085e\u2029f\u200bg\ufeffh\u1680i\u202fj",
	"\xff\xfe\xfd broken \xc3( \xe2\x82 \xf0\x9f\x98 end\xed\xa0\x80",
	"ǅungla ǈj Ǆ ᾈ ʰʲ ˢ ǀǁ ꜰ",
	"<|endoftext|> and <|endofprompt|> are text here",
	"İstanbul ΣΊΣΥΦΟΣ ß ẞ ﬁ Kelvin K ſ",
	" !!!\n\n/ ?? /\r\n\t---\t",
	"x'S x's x'Ss x'LL x'llama x're x'REd x'",
	"qwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjklzxcvbnm0123 " + strings.Repeat(" ", 200) + "x",
	"ABCdef ABC DEF GHi jKL ÀÉÎõü",
}

// Characters added in Unicode 15.1 and 16.0 are letters and digits to
// tiktoken (Rust regex's tables), unassigned to Go's 15.0 tables and so to
// tiktoken-go; a contraction spelled with ſ is one to tiktoken (simple case
// folding), not to tiktoken-go. The counts are tiktoken's (npm tiktoken
// 1.0.22); tiktoken-go's differ.
func TestO200kUnicode16(t *testing.T) {
	e := MustGet("o200k_base")
	for _, tc := range []struct {
		in     string
		pieces []string
		count  int
	}{
		{"x\U00010D40's", []string{"x", "\U00010D40", "'s"}, 6}, // GARAY DIGIT ZERO, 16.0
		{"x\U0002EBF0's", []string{"x\U0002EBF0's"}, 6},         // CJK Extension I, 15.1
		{"x\u1C89's", []string{"x", "\u1C89's"}, 5},             // CYRILLIC CAPITAL LETTER TJE, 16.0
		{"x\u0897's", []string{"x\u0897's"}, 5},                 // ARABIC PEPET, a 16.0 mark
		{"x\uA7CE's", []string{"x", "\uA7CE'", "s"}, 6},         // 17.0: still unassigned
		{"it'ſ here", []string{"it'ſ", " here"}, 4},
	} {
		if got := handPieces(tc.in); !slices.Equal(got, tc.pieces) {
			t.Errorf("pieces of %+q: %+q, want %+q", tc.in, got, tc.pieces)
		}
		if got := e.Count(tc.in); got != tc.count {
			t.Errorf("count of %+q: %d, want %d (tiktoken's)", tc.in, got, tc.count)
		}
	}
}

// Count must not change for any text: the chunked count with the
// hand-written encoder equals the chunked count with tiktoken-go.
func TestO200kCountUnchanged(t *testing.T) {
	c, _ := fastO200k(t)
	old := &tiktokenCodec{tk: c.tk}
	s := mixedText(300<<10, mixed)
	ctx := context.Background()
	got, _ := c.count(ctx, s)
	if want, _ := old.count(ctx, s); got != want {
		t.Errorf("count of %d KB of mixed text: %d, tiktoken-go %d", len(s)>>10, got, want)
	}
	ids, _ := c.encode(ctx, s, nil)
	if want, _ := old.encode(ctx, s, nil); !reflect.DeepEqual(ids, want) {
		t.Errorf("encode of %d KB of mixed text differs from tiktoken-go's", len(s)>>10)
	}
}

// Percent of the words of mixedText from each of its lists: English words,
// contractions, code, numbers, CJK, other scripts, symbols and emoji.
var (
	mixed = []int{60, 5, 12, 7, 7, 6, 3}
	prose = []int{95, 5, 0, 0, 0, 0, 0}
)

// mixedText is n bytes (about) of words drawn from its lists with the
// weights given, the same for every n.
func mixedText(n int, weights []int) string {
	words := [][]string{
		strings.Fields("the a of to and in is was it that for on with as by at an be this which from or had not are but have were they one all their there been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three"),
		strings.Fields("I'm you're we've they'll she'd he's it's don't can't WON'T Isn't THEY'RE O'Neil rock'n'roll"),
		strings.Fields("func return if else for range := != == && || {} () [] ; // /* */ fmt.Println(x) err != nil i++ x[i] map[string]int <-ch 0x1F 1e-9 a_b CamelCase snake_case HTTPServer JSONDecoder"),
		strings.Fields("42 2026 3.14159 1,234,567 99% $19.99 #7 No.5 12:30 2026-11-25 +1-555-0100"),
		strings.Fields("東京 日本語 漢字 ひらがな カタカナ 中文 文字 한국어 단어 测试 数据 模型"),
		strings.Fields("مرحبا كتاب مدينة العربية שלום עברית Привет мир Ёлка ΑΘΗΝΑ λόγος हिन्दी भाषा ภาษาไทย"),
		strings.Fields("😀 👍🏽 🇯🇵 ✈️ ★ → ∑ ≤ ≠ © ™ … — « » “ ” ‘ ’ • ° ± ×"),
	}
	seps := []string{" ", " ", " ", " ", " ", ", ", ". ", "\n", "\n\n", "\t", "  ", " (", ") ", ": ", "\r\n", "\u00a0", "\u3000", "/"}
	r := rand.New(rand.NewPCG(17, 17))
	var b strings.Builder
	for b.Len() < n {
		k, x := 0, r.IntN(100)
		for x >= weights[k] {
			x -= weights[k]
			k++
		}
		w := words[k][r.IntN(len(words[k]))]
		if r.IntN(12) == 0 {
			w = strings.ToUpper(w)
		}
		b.WriteString(w)
		b.WriteString(seps[r.IntN(len(seps))])
	}
	return b.String()
}

// BenchmarkCountO200k counts ~1 MB of text that the chunk cache has not
// seen, with tiktoken-go (regexp2) and with the hand-written encoder.
func BenchmarkCountO200k(b *testing.B) {
	c, _ := fastO200k(b)
	for _, text := range []struct {
		name    string
		weights []int
	}{{"mixed", mixed}, {"prose", prose}} {
		s := mixedText(1<<20, text.weights)
		for _, bc := range []struct {
			name string
			t    *tiktokenCodec
		}{
			{"tiktoken-go", &tiktokenCodec{tk: c.tk}},
			{"hand-written", &tiktokenCodec{tk: c.tk, fast: c.fast}},
		} {
			b.Run(text.name+"/"+bc.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					bc.t.counts = textCounts{}
					bc.t.count(context.Background(), s)
				}
			})
		}
	}
}

// The rank table answers as the rank map does, for every token and for
// strings next to tokens (a byte more or less), which merges ask about.
func TestRankTable(t *testing.T) {
	ranks, err := loader.LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	table, ok := newRankTable(ranks)
	if !ok {
		t.Fatal("o200k_base's ranks are not 0…n-1")
	}
	check := func(s string) {
		want, wantOK := ranks[s]
		for _, f := range []func(string) (int, bool){table.rank, table.lookup} {
			if got, gotOK := f(s); gotOK != wantOK || got != want {
				t.Fatalf("rank of %q: %d %v, want %d %v", s, got, gotOK, want, wantOK)
			}
		}
	}
	for tok := range ranks {
		check(tok)
		check(tok + "\x00")
		check(tok[1:])
		check(tok + tok)
	}
	// Every string words3 answers for, and the ones next to it.
	const letters = "abcdefghijklmnopqrstuvwxyz "
	for _, a := range letters {
		for _, b := range letters {
			for _, c := range letters + "{`!A\xe9" {
				check(string([]rune{a, b, c}))
			}
		}
	}
	if _, ok := newRankTable(map[string]int{"a": 0, "b": 2}); ok {
		t.Error("ranks with a gap accepted")
	}
}

// Each way a token can span the boundary between two characters
// (spanned), built from a token of o200k_base of that shape: the token
// holds both characters; starts inside the first and holds the second;
// ends inside the second and holds the first; starts inside the first and
// ends inside the second. spanned must see it, and merging must give the
// scan's tokens.
func TestO200kSpanned(t *testing.T) {
	_, fast := fastO200k(t)
	ranks, err := loader.LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	toks := make([]string, 0, len(ranks))
	for tok := range ranks {
		toks = append(toks, tok)
	}
	slices.Sort(toks)
	// before is a valid character ending with the continuation bytes c;
	// after one starting with the incomplete character u.
	before := func(c string) string {
		for r := rune(0x80); r <= utf8.MaxRune; r++ {
			if s := string(r); len(s) == len(c)+1 && strings.HasSuffix(s, c) {
				return s
			}
		}
		return ""
	}
	after := func(u string) string {
		for r := rune(0x80); r <= utf8.MaxRune; r++ {
			if s := string(r); strings.HasPrefix(s, u) && len(s) > len(u) {
				return s
			}
		}
		return ""
	}
	leadingContinuation := func(tok string) int {
		n := 0
		for n < len(tok) && n < 4 && isContinuation(tok[n]) {
			n++
		}
		return n
	}
	for _, kind := range []struct {
		name string
		// build returns a piece, its boundary k and the characters' ends
		// around it, or ok false if tok is not of this shape.
		build func(tok string) (piece string, i, k, j int, ok bool)
	}{
		{"both characters", func(tok string) (string, int, int, int, bool) {
			a, n := utf8.DecodeRuneInString(tok)
			b, m := utf8.DecodeRuneInString(tok[n:])
			if a < utf8.RuneSelf || b < utf8.RuneSelf || a == utf8.RuneError || b == utf8.RuneError {
				return "", 0, 0, 0, false
			}
			return tok[:n+m], 0, n, n + m, true
		}},
		{"starts inside", func(tok string) (string, int, int, int, bool) {
			c := leadingContinuation(tok)
			if c == 0 || c == len(tok) || charLen(tok[c:]) == 0 || utf8.RuneStart(tok[c]) && tok[c] < utf8.RuneSelf {
				return "", 0, 0, 0, false
			}
			a := before(tok[:c])
			if a == "" {
				return "", 0, 0, 0, false
			}
			return a + tok[c:c+charLen(tok[c:])], 0, len(a), len(a) + charLen(tok[c:]), true
		}},
		{"ends inside", func(tok string) (string, int, int, int, bool) {
			for j := 1; j <= 3 && j < len(tok); j++ {
				if u := tok[len(tok)-j:]; incomplete(u) {
					b := after(u)
					for c := 1; c <= 4 && c <= len(tok)-j; c++ {
						if a := tok[len(tok)-j-c : len(tok)-j]; charLen(a) == c && b != "" {
							return a + b, 0, c, c + len(b), true
						}
					}
				}
			}
			return "", 0, 0, 0, false
		}},
		{"starts and ends inside", func(tok string) (string, int, int, int, bool) {
			c := leadingContinuation(tok)
			if c == 0 || c == len(tok) || !incomplete(tok[c:]) {
				return "", 0, 0, 0, false
			}
			a, b := before(tok[:c]), after(tok[c:])
			if a == "" || b == "" {
				return "", 0, 0, 0, false
			}
			return a + b, 0, len(a), len(a) + len(b), true
		}},
	} {
		found := false
		for _, tok := range toks {
			piece, i, k, j, ok := kind.build(tok)
			if !ok {
				continue
			}
			found = true
			a, _ := utf8.DecodeRuneInString(piece[i:])
			b, _ := utf8.DecodeRuneInString(piece[k:])
			if !fast.spanned(piece, i, k, j, a, b) {
				t.Errorf("%s: %q spans %+q at %d, spanned says no", kind.name, tok, piece, k)
			}
			if got, want := fast.merge(piece, nil, &merger{}), fast.mergeScan(piece, nil); !slices.EqualFunc(got, want, func(x, y bpePart) bool { return x.start == y.start }) {
				t.Errorf("%s: merges of %+q: %v, scan %v", kind.name, piece, got, want)
			}
			break
		}
		if !found {
			t.Errorf("%s: no token of this shape", kind.name)
		}
	}
}

// The ASCII fast path of the splitter: each minimal text takes one branch
// of asciiPiece, which ends the piece where regexp2 does or leaves it (0)
// to the rune-by-rune path where a byte from 0x80 could change it.
func TestO200kASCIIPieces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"abc def", 3},   // lower run
		{"ABCdef gh", 6}, // upper run, then lower
		{"ABC d", 3},     // upper run alone
		{"it's x", 4},    // contraction
		{"abcé", 0},      // a word continued by a letter from 0x80
		{"ABCÉ", 0},      // likewise after capitals
		{"123456", 3},    // digits in threes
		{"12x", 2},       // fewer
		{"12٣", 0},       // a digit from 0x80 may follow
		{" word", 5},     // a space before a word
		{"(Camel)", 6},   // punctuation before a word
		{"\tword", 5},    // a tab before a word
		{" é", 0},        // a leading character before a byte from 0x80
		{" !!\n/x", 5},   // a space, punctuation, line feeds and slashes
		{".x", 2},        // punctuation before a letter leads it
		{".. x", 2},      // punctuation alone
		{"!!—", 0},       // punctuation continued from 0x80
		{"\t!", 1},       // a tab is no space for punctuation
		{"  x", 1},       // whitespace leaves its last space to a word
		{"   ", 3},       // whitespace at the end of the text
		{" \n\n x", 3},   // whitespace up to its last line feed
		{" \u00a0", 0},   // whitespace continued from 0x80
		{"\nx", 1},       // a line feed leads no word
		{"é", 0},         // not ASCII
	} {
		if got := asciiPiece(tc.in, 0); got != tc.want {
			t.Errorf("asciiPiece(%q) = %d, want %d", tc.in, got, tc.want)
		}
		if got, want := handPieces(tc.in), regexpPieces(tc.in); !slices.Equal(got, want) {
			t.Errorf("pieces of %q: %q, regexp2 %q", tc.in, got, want)
		}
		if tc.want > 0 && regexpPieces(tc.in)[0] != tc.in[:tc.want] {
			t.Errorf("%q: the table's end %d is not regexp2's", tc.in, tc.want)
		}
	}
}

// charAt decodes as the library does, for every three-byte sequence after
// E0–EF, four-byte ones after F0–F4 (a sample), and truncated ones.
func TestCharAt(t *testing.T) {
	check := func(s string) {
		r, n := charAt(s, 0)
		if wr, wn := utf8.DecodeRuneInString(s); r != wr || n != wn {
			t.Fatalf("charAt(%+q) = %U %d, want %U %d", s, r, n, wr, wn)
		}
	}
	for b0 := 0xE0; b0 <= 0xEF; b0++ {
		for x := range 1 << 16 {
			check(string([]byte{byte(b0), byte(x >> 8), byte(x)}))
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 1 << 20 {
		b := []byte{0xF0 + byte(r.IntN(6)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))}
		if r.IntN(2) == 0 {
			b[1], b[2], b[3] = 0x80|b[1]&0x3F, 0x80|b[2]&0x3F, 0x80|b[3]&0x3F
		}
		check(string(b))
		check(string(b[:1+r.IntN(3)]))
	}
}

// merge3 is the scan's merge of every three-byte piece that is no token,
// over bytes that make and do not make pairs.
func TestO200kMerge3(t *testing.T) {
	_, fast := fastO200k(t)
	alphabet := "aeiouxyzQ09 .'\n\x80\xa3\xe4\xf0\x9f\xff"
	n := 0
	for _, a := range []byte(alphabet) {
		for _, b := range []byte(alphabet) {
			for _, c := range []byte(alphabet) {
				piece := string([]byte{a, b, c})
				if _, ok := fast.rank(piece); ok {
					continue
				}
				n++
				if got, want := fast.merge3(piece, nil), fast.mergeScan(piece, nil); !slices.EqualFunc(got, want, func(x, y bpePart) bool { return x.start == y.start }) {
					t.Fatalf("merge3(%q) = %v, scan %v", piece, got, want)
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d pieces are no token", n)
	}
}

// lowerRun counts the bytes a-z at the start of eight, whatever byte ends
// the run and wherever: the bytes next to 'a' and 'z' ('`', '{'), those
// with the high bit set whose low bits are a-z, NUL.
func TestLowerRun(t *testing.T) {
	for b := range 256 {
		for at := range 8 {
			s := []byte("abcxyzmz")
			s[at] = byte(b)
			want := 8
			if b < 'a' || b > 'z' {
				want = at
			}
			if got := lowerRun(load64(string(s))); got != want {
				t.Errorf("lowerRun(%q) = %d, want %d", s, got, want)
			}
		}
	}
}

// classAtMultibyte decodes the characters of valid text itself: each
// length at the edges of its range, in and beyond the class table, alone
// and before more text.
func TestClassAtMultibyte(t *testing.T) {
	_, o := fastO200k(t)
	for _, r := range []rune{0x80, 'é', 'ǅ', 0x7FF, 0x800, '中', 'ー', 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
		0x10000, 0x10D40, '😀', 0x1F3FF, 0x1FFFF, 0x20000, 0x2A6DF, 0xE0100, 0x10FFFF} {
		for _, s := range []string{string(r), string(r) + "a", string(r) + "中"} {
			c, n := classAtMultibyte(o.classes, s, 0)
			if want := classify(r); c != want || n != utf8.RuneLen(r) {
				t.Errorf("classAtMultibyte(%+q) = %b %d, want %b %d", s, c, n, want, utf8.RuneLen(r))
			}
		}
	}
}

// The memo of segments outlives the text it was filled from (a merger
// goes back to the pool after each call): it keeps a copy of each
// segment's bytes, so that a text whose bytes are later overwritten (a
// reused buffer) leaves nothing it could answer for. Two segments of the
// same length at the same slot, merged differently, are merged one after
// the other from the same bytes.
func TestO200kMemoKeepsItsOwnBytes(t *testing.T) {
	_, fast := fastO200k(t)
	alphabet := []string{"😀", "👍", "🏽", "🏿", "\u200d", "\ufe0f", "🇯", "🇵", "👨", "👩", "✈", "★", "🤖", "🏳", "🌈", "\u20e3", "日", "本", "語"}
	starts := func(p []bpePart) []int {
		var s []int
		for _, x := range p {
			s = append(s, x.start)
		}
		return s
	}
	type key struct{ slot, n int }
	first := map[key]string{}
	var a, b string
	for i := 0; a == "" && i < len(alphabet); i++ {
		for j := 0; a == "" && j < len(alphabet); j++ {
			for k := 0; a == "" && k < len(alphabet); k++ {
				s := alphabet[i] + alphabet[j] + alphabet[k]
				kk := key{memoSlot(s), len(s)}
				if f, ok := first[kk]; ok && !slices.Equal(starts(fast.mergeScan(f, nil)), starts(fast.mergeScan(s, nil))) {
					a, b = f, s
				} else if !ok {
					first[kk] = s
				}
			}
		}
	}
	if a == "" {
		t.Fatal("no two segments share a slot")
	}
	buf := []byte(a)
	seg := unsafe.String(&buf[0], len(buf))
	m := fast.mergers.Get().(*merger)
	defer fast.putMerger(m)
	for _, want := range []string{a, b} {
		copy(buf, want)
		if got, want := fast.mergeSegment(seg, 0, len(seg), 3, 0, nil, m), starts(fast.mergeScan(want, nil)); !slices.Equal(starts(append(got, bpePart{len(seg), 0})), want) {
			t.Fatalf("segment %q: parts %v, want %v", seg, starts(got), want)
		}
	}
}

// shortPieces gives a piece's length only where piece gives the same, and
// a word of asciiWord only where asciiPiece takes it, for every three ASCII
// bytes followed by what could extend a piece; and a length where regexp2
// gives the same, for three bytes of every kind, the symbols and
// whitespace that the pattern tells apart among them.
func TestO200kShortPieces(t *testing.T) {
	_, fast := fastO200k(t)
	tails := []string{"", "a", "A", "1", "123", " ", "  x", "'", "'s", "/", "\n", "\r\n", " \n", "é", "中", "\u0301", "\u00a0", "١", "😀"}
	answered := map[int]bool{}
	// Every ASCII byte, and a letter from 0x80 at 128.
	char := func(i int) string {
		if i == 128 {
			return "é"
		}
		return string(rune(i))
	}
	for x := range 129 {
		for y := range 129 {
			for z := range 129 {
				xyz := char(x) + char(y) + char(z)
				l := int(shortPieces[int(pieceKinds[xyz[0]])<<6|int(pieceKinds[xyz[1]])<<3|int(pieceKinds[xyz[2]])])
				if l == 0 {
					continue
				}
				answered[l] = true
				for _, tail := range tails {
					s := xyz + tail
					if l == nonASCII {
						if s[0] < utf8.RuneSelf {
							t.Fatalf("%q: shortPieces says it starts with a byte from 0x80", s)
						}
						continue
					}
					if l == wordAt || l == wordAfter {
						if got, want := asciiWord(s, l-wordAt), asciiPiece(s, 0); got != want {
							t.Fatalf("%q: asciiWord at %d ends at %d, asciiPiece at %d", s, l-wordAt, got, want)
						}
						continue
					}
					if e := fast.piece(s, 0); e != l {
						t.Fatalf("piece(%q) ends at %d, shortPieces says %d", s, e, l)
					}
				}
			}
		}
	}
	if len(answered) != 6 {
		t.Errorf("shortPieces answers %v, want lengths 1, 2 and 3, wordAt, wordAfter and nonASCII", answered)
	}
	some := []byte("azAZ09 \n\r\t\v-._\"'/~")
	for _, x := range some {
		for _, y := range some {
			for _, z := range some {
				l := int(shortPieces[int(pieceKinds[x])<<6|int(pieceKinds[y])<<3|int(pieceKinds[z])])
				if l == 0 || l > 3 {
					continue
				}
				for _, tail := range tails {
					s := string([]byte{x, y, z}) + tail
					if got := regexpPieces(s); got[0] != s[:l] {
						t.Fatalf("regexp2 pieces of %q: %q, shortPieces says %q", s, got, s[:l])
					}
				}
			}
		}
	}
}

// Counting checks the UTF-8 of a text as it goes (countText) and counts an
// invalid one as its validText, wherever the ill-formed bytes are: in a
// piece that is merged, in one that is a token or of one to three bytes,
// after ASCII the splitter reads eight bytes at a time, at the end, in a
// chunk after the first; and a valid text that holds U+FFFD is counted
// once, as it is.
func TestO200kCountsInvalidUTF8(t *testing.T) {
	c, fast := fastO200k(t)
	long := strings.Repeat("a line of text\n", 300)
	for _, s := range []string{
		"日本語\xff語のテキスト",               // merged
		"emoji 👨\xe2\x80👩 👍\xf0\x9f🏽", // merged, truncated joiner and emoji
		"\xff", "a\xe3", "é\x80", " \xc3", // pieces of one to three bytes
		"\xed\xa0\x80 surrogate", "\xc0\xaf overlong", "\xf4\x90\x80\x80 above", "\xf8\x88\x80\x80\x80 five",
		"abcdefghijklmnop\xe4\xb8",     // at the end, after ASCII
		"\xe4\xb8\xad\xe6\x96\x87\xe5", // a token, then a truncated character
		"x \xf0\x9f\x98 y",
		long + "中文\xff字符\n" + long, // in a later chunk
		"valid \ufffd text \ufffd\ufffd",
	} {
		want := len(c.tk.Encode(validText(s), nil, nil))
		codec := &tiktokenCodec{tk: c.tk, fast: fast}
		if got, err := codec.count(context.Background(), s); err != nil || got != want {
			t.Errorf("count(%+q) = %d, %v; want %d", s, got, err, want)
		}
		_, ok := fast.run(s, nil)
		if ok != utf8.ValidString(s) {
			t.Errorf("run(%+q) says valid %v", s, ok)
		}
	}
}

// Pieces of ASCII that are no token are merged without merge's look for
// cuts: of four bytes, of up to longPiece and beyond it, with a leading
// space or symbol, in upper and mixed case, counted and encoded as
// tiktoken-go does.
func TestO200kASCIIMerges(t *testing.T) {
	c, fast := fastO200k(t)
	for _, s := range []string{
		"qzxv", " qzxv", "kieximob", " kbmcdokygbtezhzop", "xqzjvkwpfhgmbnrtlsdcyaueoiqzxjvkwpfhgmbnrtlsdcyaueoi",
		"QZXVKWPF", "zxQVKWPFhgmb", "(qzxvkw", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	} {
		want := c.tk.Encode(s, nil, nil)
		if got := fast.encode(s, nil); !slices.Equal(got, want) {
			t.Errorf("ids of %q: %v, want %v", s, got, want)
		}
		if got := fast.countText(s); got != len(want) {
			t.Errorf("count of %q: %d, want %d", s, got, len(want))
		}
	}
}

// Counting takes runs of the pieces shortPieces decides without a branch on
// their lengths (run): its count is encode's, and tiktoken-go's, for short
// texts of random IDs' bytes, ending at every place of a run, and for
// pieces of two bytes that are a token and that are not.
func TestO200kCountsShortPieces(t *testing.T) {
	c, fast := fastO200k(t)
	old := &tiktokenCodec{tk: c.tk}
	rng := rand.New(rand.NewPCG(29, 6))
	const bytes = "0123456789abcdefxyzQWZ -_.:\n"
	for range 3000 {
		b := make([]byte, 1+rng.IntN(40))
		for i := range b {
			b[i] = bytes[rng.IntN(len(bytes))]
		}
		s := string(b)
		want := len(fast.encode(s, nil))
		if got := fast.countText(s); got != want {
			t.Fatalf("count of %q: %d, encode %d", s, got, want)
		}
		if w, _ := old.count(context.Background(), s); w != want {
			t.Fatalf("encode of %q: %d tokens, tiktoken-go %d", s, want, w)
		}
	}
	// "zq" and "Qz" are no token, "ab" and "de" are.
	for _, s := range []string{"1zq2Qz3", "1ab2de3", "zq-Qz-", "ab-de-"} {
		if got, want := fast.countText(s), len(fast.encode(s, nil)); got != want {
			t.Errorf("count of %q: %d, encode %d", s, got, want)
		}
	}
}
