package lifbench

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// The expected values below are what CPython 3.11 prints for the same
// calls (CPython 3.10.13 for the 4,300-digit limit and the names); "error"
// is an exception.

// json.loads, as is_valid_json and the format points of
// judge_labels_equal_outputs, judge_onedoc_extract, judge_multidoc_batch_label
// and judge_multidoc_find_dup_text call it.
func TestPyLoads(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`NaN`, "nan"},
		{`Infinity`, "inf"},
		{`-Infinity`, "-inf"},
		{`[NaN, 1]`, "[nan, 1]"},
		{`{"a": Infinity}`, "{'a': inf}"},
		{`-NaN`, "error"},
		{`nan`, "error"},
		{`infinity`, "error"},
		{`[1, 2,]`, "error"},
		{` [1] `, "[1]"},
		{"[1]\n", "[1]"},
		{"\u00a0[1]", "error"}, // JSON whitespace only
		{`[1]x`, "error"},
		{`01`, "error"},
		{`1.`, "error"},
		{`-0`, "0"},
		{`-0.0`, "-0.0"},
		{`1e400`, "inf"},
		{`1E5`, "100000.0"},
		{`[1.5e-7]`, "[1.5e-07]"},
		{`12345678901234567890`, "12345678901234567890"},
		{`{"b": 1, "a": 2, "b": 3}`, "{'b': 3, 'a': 2}"}, // first place, last value
		{"\"a\tb\"", "error"},                            // a raw control character (strict=True)
		{`"a\u00e9"`, "aé"},
		{`"\ud83d\ude00"`, "😀"},
		{`[true, null]`, "[True, None]"},
	} {
		got := "error"
		if v, ok := pyLoads(c.in, pyOfficial); ok {
			got = pyStr(v)
		}
		if got != c.want {
			t.Errorf("json.loads(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// Python 3.10.7 and later refuse int() of more than 4,300 decimal digits,
// the sign not counted, so json.loads raises ValueError; a float of any
// length is read. The strict rubric has no limit.
func TestPyLoadsDigitLimit(t *testing.T) {
	d := func(n int) string { return strings.Repeat("7", n) }
	for _, c := range []struct {
		in            string
		official, lit bool // parsed
	}{
		{d(4300), true, true},
		{d(4301), false, true},
		{"-" + d(4300), true, true},
		{"-" + d(4301), false, true},
		{"[1, " + d(4301) + "]", false, true},
		{`{"a": ` + d(5000) + "}", false, true},
		{d(5000) + ".5", true, true},
		{d(5000) + "e-5000", true, true},
	} {
		if _, ok := pyLoads(c.in, pyOfficial); ok != c.official {
			t.Errorf("official json.loads of %d characters (%.12s…): parsed %v, want %v", len(c.in), c.in, ok, c.official)
		}
		if _, ok := pyLoads(c.in, pyLiteral); ok != c.lit {
			t.Errorf("strict json.loads of %d characters (%.12s…): parsed %v, want %v", len(c.in), c.in, ok, c.lit)
		}
	}
}

// eval() of the [[...]] matches in judge_multidoc_find_dup_text, behind
// is_valid_eval: every literal form Python accepts, and what it refuses.
func TestPyEval(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[["a", None], ['b', "c"]]`, `[['a', None], ['b', 'c']]`},
		{`[[1, 2.50], (3,)]`, `[[1, 2.5], (3,)]`},
		{`["x" "y"]`, `['xy']`},
		// string prefixes
		{`[u'a', U"b", r'\d', R'\n', b'c', B"d", rb'\x', bR'e', Br'f']`, `['a', 'b', '\\d', '\\n', b'c', b'd', b'\\x', b'e', b'f']`},
		{`[f'a{{b}}', F"c", rf'{{\d', Rf'{{']`, `['a{b}', 'c', '{\\d', '{']`},
		{`f"{1}"`, "error"}, // a field is an expression: refused (eval would give '1')
		{`f"a}"`, "error"},
		{`ur"x"`, "error"},
		{`bu"x"`, "error"},
		{`'a' b'b'`, "error"},
		{`b'é'`, "error"},
		{`b'\777'`, `b'\xff'`},
		{`'\777'`, "ǿ"},
		{`b'\u1234'`, `b'\\u1234'`},
		{`'\N{space}'`, " "},
		{`'\N{SPACE'`, "error"},
		{`'\x4'`, "error"},
		{`'\U00110000'`, "error"},
		{`'\q'`, `\q`},
		{"'a\x00'", "error"},
		{"'''a\nb'''", "a\nb"},
		{"'a\nb'", "error"},
		// numbers
		{`0_7`, "error"},
		{`0_0`, "0"},
		{`00`, "0"},
		{`01`, "error"},
		{`0009`, "error"},
		{`0_00`, "0"},
		{`01.5`, "1.5"},
		{`09.5`, "9.5"},
		{`01j`, "1j"},
		{`01e5`, "100000.0"},
		{`1__0`, "error"},
		{`1_`, "error"},
		{`1_j`, "error"},
		{`0x_1f`, "31"},
		{`0x1F`, "31"},
		{`0O17`, "15"},
		{`0B1`, "1"},
		{`0b102`, "error"},
		{`0x1j`, "error"},
		{`0xFFFFFFFFFFFFFFFFFFFF`, "1208925819614629174706175"},
		{`12345678901234567890123`, "12345678901234567890123"},
		{`1e5j`, "100000j"},
		{`.5j`, "0.5j"},
		{`1J`, "1j"},
		{`1.e5`, "100000.0"},
		{`1_000.000_1`, "1000.0001"},
		{`1e1_0`, "10000000000.0"},
		{`0e0`, "0.0"},
		{`0_0e0`, "0.0"},
		{`1e400`, "inf"},
		{`1e-400`, "0.0"},
		{`-0.0`, "-0.0"},
		{`-1j`, "(-0-1j)"},
		{`-1e400j`, "(-0-infj)"},
		{`1+2j`, "(1+2j)"},
		{`1-2j`, "(1-2j)"},
		{`-1+2j`, "(-1+2j)"},
		{`1+-2j`, "(1-2j)"},
		{`(1)+2j`, "(1+2j)"},
		{`1j+1`, "(1+1j)"},
		{`1+2`, "3"},
		{`--1`, "1"},
		{`-(-1)`, "1"},
		{`+1`, "1"},
		{`-True`, "-1"},
		{`True+1`, "2"},
		{`1, 2`, "(1, 2)"},
		{` 1 ,`, "(1,)"},
		{"\n1", "1"},
		{"\n 1", "error"}, // an indented line
		{"1\n\n", "1"},
		{"1\n2", "error"},
		{"# c\n1", "1"},
		{"[1, # c\n 2]", "[1, 2]"},
		{"1\\\n+1", "2"},
		{`1abc`, "error"},
		{`1.5.2`, "error"},
		// containers and the rest
		{`...`, "Ellipsis"},
		{`[...]`, "[Ellipsis]"},
		{`{1, True}`, "{1}"},
		{`{1:2, True:3}`, "{1: 3}"},
		{`{[1]}`, "error"},      // unhashable
		{`{(1,[2])}`, "error"},  // unhashable
		{`(1,[2])`, "(1, [2])"}, //
		{`{}`, "{}"},
		{`{1,}`, "{1}"},
		{`(,)`, "error"},
		{`()`, "()"},
		{`(1)`, "1"},
		{`((1,))`, "(1,)"},
		{`[1,,]`, "error"},
		{"[1,\r2]", "[1, 2]"},
		{"[1,\v2]", "error"},
		{"[1,\f2]", "[1, 2]"},
		{"[1,\t2]", "[1, 2]"},
		{"[1, \u00a02]", "error"},
		{`[1 #]`, "error"},
		{`{'b': 1, 'a': [None, True]}`, `{'b': 1, 'a': [None, True]}`},
		{`['\u200b', 'x\x7f']`, `['\u200b', 'x\x7f']`},
		{strings.Repeat("[", 200) + strings.Repeat("]", 200), strings.Repeat("[", 200) + strings.Repeat("]", 200)},
		{strings.Repeat("[", 201) + strings.Repeat("]", 201), "error"}, // too many nested parentheses
		// expressions eval would run: refused by the literal reading
		{`[[a]]`, "error"},
		{`[[__import__("os")]]`, "error"},
		{`[[2*3]]`, "error"},
		{`[[id]]`, "error"},
		{`'a'+'b'`, "error"},
		{strings.Repeat("9", 5000), strings.Repeat("9", 5000)},
	} {
		got := "error"
		if v, err := pyEval(c.in, pyLiteral); err == nil {
			got = pyStr(v)
		}
		if got != c.want {
			t.Errorf("eval(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// eval() as the official scorer runs it (CPython 3.10.7 or later, in the
// evaluation module): the names it sees and + between sequences are
// evaluated, and a decimal integer of more than 4,300 digits is a
// SyntaxError. Expected values are CPython 3.10.13's str(); "…" stands for
// an address or a path.
func TestPyEvalOfficial(t *testing.T) {
	d := func(n int) string { return strings.Repeat("7", n) }
	for _, c := range []struct{ in, want string }{
		{`[[id]]`, "[[<built-in function id>]]"},
		{`[["ID1", id], ["ID2", title]]`, "error"}, // title is no name: NameError
		{`[[len, str, ValueError, IOError]]`, "[[<built-in function len>, <class 'str'>, <class 'ValueError'>, <class 'OSError'>]]"},
		{`[[Ellipsis, NotImplemented, __debug__, __doc__, __name__]]`, "[[Ellipsis, NotImplemented, True, None, 'EvaluateFunc']]"},
		{`[[exit, license]]`, "[[Use exit() or Ctrl-D (i.e. EOF) to exit, Type license() to see the full license text]]"},
		{`[[re, min_edi_dis]]`, "[[<module 're' from '…/re.py'>, <function min_edi_dis at 0x…>]]"},
		{`ｉｄ`, "<built-in function id>"}, // NFKC
		{`Ｔｒｕｅ`, "True"},
		{`[[expression]]`, "error"}, // is_valid_eval's local: the scorer's own eval raises NameError
		{`[[answer]]`, "error"},     // the scorer's local: is_valid_eval's eval raises NameError
		{`[[idx]]`, "error"},
		{`[[id()]]`, "error"}, // a call: not evaluated here
		{`[[id + 1]]`, "error"},
		{`[["a" + "b"]]`, "[['ab']]"},
		{`[["a" "b" + 'c']]`, "[['abc']]"},
		{`[[b"a" + b"b"]]`, "[[b'ab']]"},
		{`[["a"] + ["b"], (1,) + (2,)]`, "[['a', 'b'], (1, 2)]"},
		{`[["a" + b"b"]]`, "error"},
		{`[["a" + 1]]`, "error"},
		{`[[[1] + (2,)]]`, "error"},
		{`[["a" - "b"]]`, "error"},
		{`[[True + 1, 1 + 2j]]`, "[[2, (1+2j)]]"},
		{d(4300), d(4300)},
		{d(4301), "error"},
		{"-" + d(4301), "error"},
		{strings.Repeat("7_", 2150) + "7", strings.Repeat("7", 2151)}, // underscores are no digits
		{strings.Repeat("0", 4301), "0"},                              // read without int()
		{d(4301) + "j", "infj"},                                       // a float: no limit
		{"0x" + strings.Repeat("f", 4000), "error"},                   // evaluates, but str() raises
	} {
		got := "error"
		if v, err := pyEval(c.in, pyOfficial); err == nil && !pyOfficial.strRaises(v) {
			got = pyStr(v)
		}
		if got != c.want {
			t.Errorf("eval(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// llm_output.encode('utf-8').decode('unicode_escape'), the step of
// judge_labels_equal_outputs, judge_onedoc_extract and
// judge_multidoc_find_dup_text, with \N{...}: names and aliases in any case,
// the algorithmic Hangul and CJK names in upper case only.
func TestUnicodeEscapeNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`\N{latin small letter a}x`, "ax"},
		{`\N{LATIN CAPITAL LETTER GHA}`, "Ƣ"}, // an alias (correction)
		{`\N{NULL}`, "\x00"},                  // control names are aliases
		{`\N{BOM}`, "\ufeff"},
		{`\N{nbsp}`, "\u00a0"},
		{`\N{LINE FEED}`, "\n"},
		{`\N{HANGUL SYLLABLE GA}`, "가"},
		{`\N{HANGUL SYLLABLE GAG}`, "각"},
		{`\N{hangul syllable GAG}`, "error"},
		{`\N{hangul syllable ga}`, "error"}, // the jamo must be upper case
		{`\N{HANGUL SYLLABLE}`, "error"},
		{`\N{CJK UNIFIED IDEOGRAPH-4E00}`, "一"},
		{`\N{cjk unified ideograph-4E00}`, "error"},
		{`\N{CJK UNIFIED IDEOGRAPH-4e00}`, "error"},
		{`\N{CJK UNIFIED IDEOGRAPH-0041}`, "error"},
		{`\N{CJK COMPATIBILITY IDEOGRAPH-F900}`, "\uf900"},
		{`\N{BYZANTINE MUSICAL SYMBOL FHTORA SKLIRON CHROMA VASIS}`, "𝃅"},
		{`\N{TANGUT IDEOGRAPH-17000}`, "error"},
		// Characters added after Unicode 13.0 have no name in Python 3.10.
		{`\N{KAWI LETTER A}`, "error"},
		{`\N{ARABIC LETTER ALEF WITH ATTACHED FATHA}`, "error"},
		{`\N{CJK UNIFIED IDEOGRAPH-31350}`, "error"}, // Extension H, 15.0
		{`\N{CJK UNIFIED IDEOGRAPH-30000}`, "\U00030000"},
		{`\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}`, "error"}, // a named sequence
		{`\N{ LATIN SMALL LETTER A}`, "error"},
		{`\N{latin  small letter a}`, "error"},
		{`\N{LATIN SMALL LETTER A`, "error"},
		{`\N`, "error"},
		{`\Nx`, "error"},
		{`\N{}`, "error"},
		{`\N{é}`, "error"},
		{`\q\é`, `\q\Ã©`}, // unknown escapes stay; the byte after the backslash is Latin-1
	} {
		got, err := unicodeEscape(c.in)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("unicode_escape(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// The unicode_escape step of judge_labels_equal_outputs,
// judge_onedoc_extract and judge_multidoc_find_dup_text garbles non-ASCII
// answers: official keeps the quirk, strict finds the answer.
func TestStrictKeepsNonASCII(t *testing.T) {
	kl := Label{{Type: "#Topic#", Items: []KeySentence{{"Ça va, très bien.", 1, 3, true}}}}
	lab, _ := json.Marshal(kl)
	extract, _ := TaskByName("extract")
	out := `["Ça va, très bien."]`
	off, err := Score(extract, "", out, &Gold{Scenario: OneDoc, Param: Param{Type: "<#Topic#>"}, Label: lab}, false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Score(extract, "", out, &Gold{Scenario: OneDoc, Param: Param{Type: "<#Topic#>"}, Label: lab}, true)
	if err != nil {
		t.Fatal(err)
	}
	// official: format 4, order 0, ori 0, correct 0.5 (no fake sentence).
	if !near(off.Score, 4.5/14) || !near(st.Score, 1) {
		t.Errorf("extract of a non-ASCII sentence: official %.4f (want %.4f), strict %.4f (want 1)", off.Score, 4.5/14, st.Score)
	}
	// Escapes are still decoded in strict mode.
	st, _ = Score(extract, "", `["\u00c7a va, tr\u00e8s bien."]`, &Gold{Scenario: OneDoc, Param: Param{Type: "<#Topic#>"}, Label: lab}, true)
	if !near(st.Score, 1) {
		t.Errorf("extract with JSON escapes, strict: %.4f", st.Score)
	}
}

// op_answer2map (flag 1) on the evaluated rows of a [[...]] match.
func TestDupRow(t *testing.T) {
	for _, c := range []struct {
		in    string
		cells string // str() of the cells; "raise" when Python raises
	}{
		{`['a', 1]`, "['a', 1]"},
		{`''`, "[]"},
		{`()`, "[]"},
		{`b''`, "[]"},
		{`{1: 'b', 0: 'a'}`, "['a', 'b']"},
		{`{0: 'a', 2: 'b'}`, "raise"}, // KeyError
		{`'ab'`, "raise"},             // item assignment on a str
		{`('a',)`, "raise"},
		{`None`, "raise"},
		{`3`, "raise"},
		{`{'a'}`, "raise"},
	} {
		v, err := pyEval(c.in, pyLiteral)
		if err != nil {
			t.Fatal(c.in, err)
		}
		got := "raise"
		if cells, ok := dupRow(v); ok {
			got = pyRepr(pyList(cells))
		}
		if got != c.cells {
			t.Errorf("row %s: got %s, want %s", c.in, got, c.cells)
		}
	}
}

// Any text: eval either refuses it or gives a value whose repr evaluates
// to the same repr; json.loads accepts every text Go's encoding/json finds
// valid.
func FuzzPyLiterals(f *testing.F) {
	for _, s := range []string{`[["a", None], ('b',)]`, `{1: b'x', 2: ...}`, `0x_1f`, `1+2j`, `-1e400j`, `rb'\x'`, `f'{{'`, `'\N{BOM}'`, `{1, True}`, `NaN`, `[Infinity, -Infinity]`, `{"b": 1, "b": 2}`, `01`, `1__0`, `'\777'`, `[["ID" + "1", id]]`, `ｉｄ + len`, `(1,) + (2,)`, `"a" + 1`, strings.Repeat("9", 4301), "0x" + strings.Repeat("f", 3600)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := pyEval(s, pyLiteral)
		// The official reading only adds names and + on sequences, and
		// refuses only integers of more than 4,300 digits.
		if ov, oerr := pyEval(s, pyOfficial); err == nil && len(s) <= pyOfficial.maxDigits && (oerr != nil || pyRepr(ov) != pyRepr(v)) {
			t.Fatalf("eval(%q) = %s literally, %v (%v) officially", s, pyRepr(v), ov, oerr)
		}
		if err == nil {
			r := pyRepr(v)
			// Ellipsis, inf and nan print as names, not literals, and a
			// complex repr is an expression that may lose a zero's sign
			// (Python too: eval(repr(-0j)) is 0j).
			if _, isSet := v.(pySet); !isSet && utf8.ValidString(s) && !strings.ContainsAny(r, "j") && !strings.Contains(r, "nan") && !strings.Contains(r, "inf") && !strings.Contains(r, "Ellipsis") {
				w, err := pyEval(r, pyLiteral)
				if err != nil || pyRepr(w) != r {
					t.Fatalf("eval(%q) = %s, which evaluates to %v (%v)", s, r, w, err)
				}
			}
		}
		if _, ok := pyLoads(s, pyLiteral); !ok && json.Valid([]byte(s)) && utf8.ValidString(s) {
			t.Fatalf("json.loads refuses %q, which is valid JSON", s)
		}
	})
}
