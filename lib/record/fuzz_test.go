package record

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// The record scanner takes any line: it parses or errors, never panics, and a
// parsed record writes back as a line that parses to the same id and fields.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"id":"a"}`, `{"id":1}`, `{"id":"a","n":12345678901234567890123,"f":1.50,"e":1E+3}`,
		`{"id":"\u00e9\ud83d\ude00","x":{"y":[1,2,{"z":null}]}}`, `{"id":"a","id":"b"}`, `{"id":"a"} trailing`,
		`[1,2]`, `{"x":1}`, `{"id":""}`, `{`, `"id"`, "\xef\xbb\xbf{\"id\":\"a\"}", `{"id":"a","s":"\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := Parse(bytes.Clone(line))
		if err != nil {
			return
		}
		out := rec.AppendJSON(nil)
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("%q parsed, but its output %q does not: %v", line, out, err)
		}
		if again.ID() != rec.ID() || !bytes.Equal(again.AppendJSON(nil), out) {
			t.Fatalf("%q: round trip changed it: %q then %q", line, out, again.AppendJSON(nil))
		}
	})
}

// Unquote is json.Unmarshal into a string, value and error, for any input.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"a\nb\t\"q\"\\\/"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`,
		`"\udc00\ud800"`, `"\u004A\u004a"`, "\"\xff\"", "\"caf\xc3\xa9\"", `"\x"`, `"a`, `"\u12"`, "\"\x01\"", `""`, `"\b\f\r"`,
		`"\"`, `"a\"b"`, `"\\"`, `"\u0022"`, `"x\`,
		// Longer than a word, with escapes across the eight-byte steps.
		`"0123456\n89abcdef0\"23456789\\bcdef\u00e9xyz\ud83d\ude00567"`, "\"0123456789abcdef\"0123456789\"", "\"0123456789\x01bcdef\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := Unquote(raw)
		var want string
		werr := json.Unmarshal(raw, &want)
		if (err == nil) != (werr == nil) || err == nil && got != want {
			t.Fatalf("Unquote(%q) = %q, %v; json.Unmarshal gives %q, %v", raw, got, err, want, werr)
		}
		// CheckedUnquote agrees on every string the scanner checks, and
		// never panics on others.
		cgot, cerr := CheckedUnquote(raw)
		if end, serr := skipString(raw, 0); len(raw) > 0 && raw[0] == '"' && serr == nil && end == len(raw) && (cgot != got || (cerr == nil) != (err == nil)) {
			t.Fatalf("CheckedUnquote(%q) = %q, %v; Unquote gives %q, %v", raw, cgot, cerr, got, err)
		}
	})
}

// Object and Elements give the raw members and elements a decoder gives
// (for valid UTF-8: the scanner keeps a key's invalid bytes, which the
// decoder turns into U+FFFD).
func FuzzObjectElements(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"hi\n"}],"max_tokens":8}`, `{}`, `[]`, ` [1, "a", {"b":[null]}] `,
		`{"a":1,"a":2}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":1} x`,
		`{"s":"q\"}\\","n":-1.5e3,"t":true,"o":{"k":["]",{"x":null}]},"z":0}`, `[ "\\\"" , 12 ,[] ]`, `{"a":[}`, `{"a":"\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkedAgree(t, b)
		if !utf8.Valid(b) {
			return
		}
		var m map[string]json.RawMessage
		if obj, err := Object(b); err == nil {
			if json.Unmarshal(b, &m) != nil {
				t.Fatalf("Object(%q) read an object the decoder rejects", b)
			}
			for k, v := range m {
				if got := obj.Raw(k); !bytes.Equal(got, bytes.TrimSpace(v)) {
					t.Fatalf("Object(%q).Raw(%q) = %q, want %q", b, k, got, v)
				}
			}
		}
		var a []json.RawMessage
		if els, err := Elements(b); err == nil {
			if json.Unmarshal(b, &a) != nil || len(a) != len(els) {
				t.Fatalf("Elements(%q) = %d elements; the decoder gives %d", b, len(els), len(a))
			}
			for i := range a {
				if !bytes.Equal(els[i], bytes.TrimSpace(a[i])) {
					t.Fatalf("Elements(%q)[%d] = %q, want %q", b, i, els[i], a[i])
				}
			}
		}
	})
}

// checkedAgree: CheckedObject and CheckedElements read what Object and
// Elements read on any bytes those accept, and on other bytes never panic.
func checkedAgree(t *testing.T, b []byte) {
	t.Helper()
	obj, err := Object(b)
	cobj, cerr := CheckedObject(b)
	if err == nil && (cerr != nil || fmt.Sprintf("%+v", cobj.members) != fmt.Sprintf("%+v", obj.members)) {
		t.Fatalf("CheckedObject(%q) = %+v, %v; Object gives %+v", b, cobj.members, cerr, obj.members)
	}
	els, err := Elements(b)
	cels, cerr := CheckedElements(b)
	if err == nil && (cerr != nil || fmt.Sprintf("%q", cels) != fmt.Sprintf("%q", els)) {
		t.Fatalf("CheckedElements(%q) = %q, %v; Elements gives %q", b, cels, cerr, els)
	}
}

// skipString reads eight bytes at a time and jumps to the byte that
// stopped it; it ends where a scan of one byte at a time ends, with the same
// error at the same offset, wherever the quotes, escapes and control
// characters fall against the words.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"0123456\"`, `"01234567\n89abcdef\u00e9xyz" tail`, `"\u12"`, `"\x"`, `"abc\`, "\"abcdefgh\x1f\"",
		"\"caf\xc3\xa9 \xff\"", `"12345678`, `"\ud83d\ude00"`, `""`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, at uint8) {
		i := int(at) % (len(b) + 1)
		if i == len(b) || b[i] != '"' {
			return
		}
		end, err := skipString(b, i)
		wend, werr := skipStringByBytes(b, i)
		if end != wend || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("skipString(%q, %d) = %d, %v; byte by byte: %d, %v", b, i, end, err, wend, werr)
		}
	})
}

// skipStringByBytes is skipString one byte at a time, as JSON's grammar
// reads a string.
func skipStringByBytes(b []byte, i int) (int, error) {
	start := i
	for i++; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return i, &syntaxError{i, "unterminated string"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, &syntaxError{i, "invalid \\u escape"}
				}
				for _, h := range b[i+2 : i+6] {
					if !strings.ContainsRune("0123456789abcdefABCDEF", rune(h)) {
						return i, &syntaxError{i, "invalid \\u escape"}
					}
				}
				i += 6
			default:
				return i, &syntaxError{i, "invalid escape"}
			}
		case c < 0x20:
			return i, &syntaxError{i, "control character in string"}
		default:
			i++
		}
	}
	return start, &syntaxError{start, "unterminated string"}
}

// validUTF8 is utf8.Valid on any bytes, wherever a sequence falls against
// the eight-byte words it reads.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{
		"", "plain ascii text, longer than a word", "caf\xc3\xa9", "日本語のテキスト", "🙏🏿 👨‍👩‍👧‍👦", "\xed\xa0\x80", "\xed\x9f\xbf",
		"\xe0\x80\xaf", "\xe0\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xc0\xaf", "\xc2\x80",
		"\xff", "\x80", "abcdefg\xe6\x97", "abcdefgh\xe6\x97\xa5", "\xf5\x80\x80\x80",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for k := range min(len(b), 9) {
			if got, want := validUTF8(b[k:]), utf8.Valid(b[k:]); got != want {
				t.Fatalf("validUTF8(%q) = %v, utf8.Valid %v", b[k:], got, want)
			}
		}
	})
}

// DecodeAny is json.Unmarshal into an any, value and success, for any input.
func FuzzDecodeAny(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"a\nb \"q\" \u00e9\ud83d\ude00 \u003c"}],"max_tokens":8,"stream":false,"stop":null}`,
		`[]`, `{}`, ` [1, -2.5e3, true, false, null, "x", [], {}] `, `{"a":1,"a":2}`, `1e400`, `-0`, `01`, `"\ud83d"`,
		"\"caf\xc3\xa9 \xff\"", `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `"\x"`, "\"\x01\"", `{"a":[`, `tru`, `"a"b`, ``, `  `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeAny(b)
		var want any
		werr := json.Unmarshal(b, &want)
		if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeAny(%q) = %#v, %v; json.Unmarshal gives %#v, %v", b, got, err, want, werr)
		}
	})
}
