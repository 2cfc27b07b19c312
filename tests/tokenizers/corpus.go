package tokenizers

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// corpus is the stress corpus: texts written to meet each case a tokenizer
// can get wrong (scripts, emoji sequences, combining marks, whitespace runs,
// code, digits, special-token text inside user text, invalid UTF-8, case
// folding, characters of recent Unicode versions), random mixes of such
// characters, and long texts (100 KB and more). It is the same on every run.
func corpus() []string {
	var out []string
	add := func(s ...string) { out = append(out, s...) }

	// Prose in many scripts.
	add("The committee's report, published on Tuesday, didn't say much.\nIt'll be discussed again.",
		"SHE'S HERE. They'RE late; WE'VE 'em. I'D know. You'Ll see 'LL",
		"Le cœur a ses raisons que la raison ne connaît point. Ça va? Où êtes-vous, Élodie?",
		"Größere Straßen führen über die Brücke; ẞ und ß sind verschieden.",
		"Привет, мир! Ёлка и ЁЖИК. Съешь же ещё этих мягких французских булок.",
		"ΟΔΟΣ, οδός, ΣΊΣΥΦΟΣ. Τὸ λόγος ἐστίν. ΣΑΣ Σ σ ς",
		"مرحبا بالعالم، هذا نص عربي قصير. العربية لغة جميلة.",
		"שלום עולם! זה טקסט בעברית עם ניקוד: שָׁלוֹם",
		"हिन्दी भाषा में लिखा गया वाक्य। क्षत्रिय ज्ञान",
		"ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ แต่มีระหว่างประโยค",
		"東京都は日本の首都です。人口は約1400万人。カタカナとひらがな。",
		"中文字符测试，数据模型。龥龦鿿𠀀𪛖",
		"한국어 단어와 문장을 씁니다. 가각갂 각",
		"Tiếng Việt có dấu: người, được, không, Nguyễn",
		"ქართული ენა ᲐᲑᲒ ა ბ",
		"Ꭰ Ꮳ ꮳ Cherokee ᏣᎳᎩ",
		"İstanbul ΣΊΣΥΦΟΣ ß ẞ ﬁ Kelvin K ſ Å ǅ ǈj Ǆ ᾈ ʰʲ ˢ ǀǁ ꜰ",
	)
	// Characters of recent Unicode versions: 15.0 (Kawi), 15.1 (CJK
	// Extension I), 16.0 (Garay, Todhri, Kirat Rai, a Cyrillic capital, an
	// Arabic mark), 17.0 (still unassigned to the references).
	add("x\U00010D40's", "x\U0002EBF0's y\U0002EBF1z", "x\u1C89's \u1C8A", "a\u0897b", "\U000105C0\U000105C1 todhri",
		"\U00016D40\U00016D43\U00016D70 kirat", "\U00011F04\U00011F50 kawi", "x\uA7CE's \uA7CF", "\U00011DE0\U00011DE1 digits",
		"\U00010D40\U00010D41\U00010D42\U00010D43", "\U0002EBF0\U0002EBF1\U0002EBF2 ideographs")
	// Contractions and case folding.
	add("it's It'S IT's it'ſ it'Ş x'K x'k", "'s't're've'm'll'd 'S'T'RE'VE'M'LL'D", "don't won't can't shan't y'all o'clock rock'n'roll",
		"x'S x's x'Ss x'LL x'llama x're x'REd x'", "'ſ 'ſſ ſ's ſ'ſ")
	// Emoji sequences.
	add("emoji 😀👍🏽 family 👨‍👩‍👧‍👦 flags 🇯🇵🇫🇷🏴󠁧󠁢󠁳󠁣󠁴󠁿 ✈️ keycap 1️⃣ #️⃣",
		"🧑🏿‍🤝‍🧑🏻 👩🏽‍🚀 🏳️‍🌈 ❤️‍🔥 🫶🏼", strings.Repeat("😀", 50), "a😀b😀c 😀😀 😀 😀")
	// Combining marks: stacks, orders, composed and decomposed forms.
	add("cafe\u0301 nai\u0308ve \u0301\u0302 e\u20dd A\u0308B\u0308c", "a"+strings.Repeat("\u0301", 31), "a"+strings.Repeat("\u0301", 40)+"b",
		"e"+strings.Repeat("\u0316\u0301", 20), "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u0334\u0335\u031c\u0330\u0354L\u0368\u0367\u0369\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354\u0339O\u0342\u030c\u030c\u0358\u0328\u0335\u0339\u033b\u031d\u0333",
		"\u1100\u1161\u11a8 \uac00\u11a8", "\u0041\u030A \u00C5 \u212B", "\u1E9B\u0323", "\U00011935\U00011930 \U000113C2\U000113C2",
		"a\u0897\u0316 a\u1DF9\u0301", "ﬁ ﬂ ﬃ ① ㍻ ｶ ｱｲｳ Ａ１", "\u0F73 \u0F75 \u0F81", "\u0344 \u0340 \u0341 \u0343")
	// Whitespace.
	add("   \t\t\n\n\r\n \r\r  \n  x  \n", "a\u00a0b\u2028c\u3000d\u0085e\u2029f\u200bg\ufeffh\u1680i\u202fj", "   \n   ", " ", "\n", "\t",
		"a"+strings.Repeat(" ", 1000)+"b", strings.Repeat("\n", 300), strings.Repeat(" \n", 200), "word\u00a0\u00a0", "\u3000\u2028 \u0085z",
		"x \t\n \r\n  y", "a  \u00a0b", "\x1c\x1d\x1e\x1f", "trailing   ", "   leading", "\r\n\r\n\r\n")
	// Code and markup.
	add("func main() {\n\tfmt.Println(\"hi\") // comment\r\n\tx := a[i]/b[j]\n}\n",
		"def f(x):\n    return {'a': [1, 2.5e-3, None], \"b\": x ** 2}  # done\n",
		"const re = /^(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+)$/i;\nconsole.log(`${a}`);\n",
		"<html><body><p class=\"x\">Hi &amp; bye</p><!-- c --></body></html>",
		`{"id": "abc-123", "values": [1, -2, 3.0e10], "nested": {"k": null, "t": true}}`,
		"https://example.org/a/b?c=d&e=f#g //path/ \\\\server\\share C:\\Users\\x",
		"SELECT a, COUNT(*) FROM t WHERE b >= 10 GROUP BY a;\n", "x+=1;y-=2;z*=3;w/=4;v%=5;u**=6;t//=7;",
		strings.Repeat("a = 1;\n", 584)+strings.Repeat("}\n// comment", 5))
	// Digits.
	add("123456789012 3.14159 1,000,000 ١٢٣٤ ⅫⅣ ½¼ ²³", strings.Repeat("1", 5000), "0123456789"+strings.Repeat("9", 97),
		"+1-555-0100 2026-11-25 12:30:45.678", "１２３ ٣٤٥ ۴۵۶ ߁߂ ၁၂ 𝟗𝟘", "1a2b3c 4.5.6 7,8,9")
	// Special-token text inside user text, with and without spaces around.
	for _, tok := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|eot_id|>", "<|begin_of_text|>", "<s>", "</s>", "<unk>",
		"<start_of_turn>", "<end_of_turn>", "<unused12>", "<bos>", "<eos>", "<pad>", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>",
		"<|channel|>", "<|message|>", "<|start|>", "<|end|>", "<|return|>", "<think>", "</think>", "<tool_call>", "<|fim_prefix|>"} {
		add(tok, "x"+tok+"y", "word "+tok+" word", "  "+tok+"  \n", tok+tok, "<"+tok+">", strings.ToUpper(tok))
	}
	add("<|im_end|>\n", "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n",
		"<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>", "\n\n\n\n\t\t\t\t    ▁▁▁▁")
	// Invalid UTF-8: stray continuation bytes, truncated sequences,
	// surrogates, overlong forms, bytes that never occur.
	add("\xff\xfe\xfd broken \xc3( \xe2\x82 \xf0\x9f\x98 end\xed\xa0\x80", "a\xffb", "\xe6\x97 日", "\xc0\x80 \xc1\xbf \xe0\x80\x80 \xf5\x80\x80\x80",
		"\xf4\x90\x80\x80 \xf0\x8f\xbf\xbf", "\x80\x80\x80abc", "xyz\xe2\x82", "\xed\xbf\xbf\xed\xa0\x80\xed\xb0\x80")

	r := rand.New(rand.NewPCG(29, 2026))
	// Random mixes of characters the patterns tell apart.
	alphabet := []string{
		"a", "z", "s", "S", "t", "T", "r", "R", "e", "E", "v", "V", "m", "M", "l", "L", "d", "D", "'", "'", "ſ", "K",
		"É", "é", "ǅ", "ʰ", "あ", "日", "\u0301", "\u0316", "\u0903", "\u20dd", "\u034f", "7", "٣", "Ⅻ", "½", "\U00010D40",
		" ", " ", " ", " ", "\t", "\n", "\n", "\r", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u3000", "\u200b", "\ufeff", "\x1c",
		"/", "!", ".", ",", "-", "_", "(", ")", "<", ">", "|", "😀", "👍🏽", "‍", "🇯", "𝐀", "𝐚", "\xff", "\xe6\x97", "\x00",
		"▁", "<s>", "</s>", "<|im_end|>", "<|eot_id|>", "<end_of_turn>", "İ", "Σ", "ς", "ß", "한", "ᄀ", "ᅡ", "\U0002EBF0",
		"\u1C89", "\uA7CE", "\u0897", "\U00011935", "\U00011930", "ﬁ", "Ａ", "①",
	}
	for range 2600 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		add(b.String())
	}
	// Random words of a List scenario: letter strings, IDs, hashes.
	for range 200 {
		var b strings.Builder
		for range 1 + r.IntN(20) {
			fmt.Fprintf(&b, "%s%s", randomString(r, 3+r.IntN(20)), []string{" ", "\n", ", ", "; ", "-", "_", "."}[r.IntN(7)])
		}
		add(b.String())
	}
	// Long texts.
	add(strings.Repeat("中文字符", 1400), strings.Repeat(" ", 100000), strings.Repeat("ab", 50000), strings.Repeat("\u0301", 5000),
		strings.Repeat("a\u0301", 20000), strings.Repeat("\t\n ", 30000))
	for k := range 12 {
		add(long(r, 100<<10+k*4096))
	}
	for range 6 {
		var b strings.Builder
		for b.Len() < 120<<10 {
			fmt.Fprintf(&b, "%d. %s\n", b.Len(), randomString(r, 8+r.IntN(40)))
		}
		add(b.String())
	}
	return out
}

func randomString(r *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

// long is about n bytes of every kind of the corpus joined: prose in many
// scripts, code, numbers, emoji, special-token text and whitespace runs.
func long(r *rand.Rand, n int) string {
	words := [][]string{
		strings.Fields("the a of to and in is was it that for on with as by at an be this which from or had not are but have were they one all their there been has"),
		strings.Fields("I'm you're we've they'll she'd he's it's don't can't WON'T Isn't THEY'RE O'Neil it'ſ"),
		strings.Fields("func return if else for range := != == && || {} () [] ; // /* */ fmt.Println(x) err != nil i++ x[i] 0x1F 1e-9 a_b CamelCase HTTPServer"),
		strings.Fields("42 2026 3.14159 1,234,567 99% $19.99 #7 12:30 ١٢٣ １２ 𝟗 \U00010D40\U00010D41"),
		strings.Fields("東京 日本語 漢字 ひらがな カタカナ 中文 文字 한국어 단어 测试 \U0002EBF0"),
		strings.Fields("مرحبا كتاب שלום Привет Ёлка ΑΘΗΝΑ ΟΔΟΣ λόγος हिन्दी ภาษาไทย café naïve e\u0301 \u1C89\u1C8A"),
		strings.Fields("😀 👍🏽 👨‍👩‍👧 🇯🇵 ✈️ ★ → ∑ ≤ © … — « » “ ” ‘ ’ <|im_end|> <s> </s> <|eot_id|> <end_of_turn> ▁"),
	}
	seps := []string{" ", " ", " ", " ", ", ", ". ", "\n", "\n\n", "\t", "  ", "   ", ": ", "\r\n", "\u00a0", "\u3000", "/", "\n    "}
	var b strings.Builder
	for b.Len() < n {
		w := words[r.IntN(len(words))]
		s := w[r.IntN(len(w))]
		if r.IntN(10) == 0 {
			s = strings.ToUpper(s)
		}
		b.WriteString(s)
		b.WriteString(seps[r.IntN(len(seps))])
	}
	return b.String()
}
