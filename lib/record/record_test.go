package record

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsePassThrough(t *testing.T) {
	// An unmodified record must come back byte for byte: stages carry fields
	// they do not understand, and numbers must never be re-spelled.
	tests := []struct {
		name, line, id string
	}{
		{"big integer id", `{"id":12345678901234567890123,"x":1}`, "12345678901234567890123"},
		{"negative integer id", `{"id":-7}`, "-7"},
		{"string id", `{"id":"a-1","bench":"lifbench"}`, "a-1"},
		{"escaped string id", `{"id":"a\"b\u00e9"}`, "a\"bé"},
		{"key order kept", `{"z":1,"id":"k","a":2,"m":[1,2,{"q":null}]}`, "k"},
		{"number spellings", `{"id":"n","f":1.50,"e":1E+300,"neg":-0.0,"big":98765432109876543210987654321}`, "n"},
		{"unicode and escapes", `{"id":"u","s":"<a&b> \u2028 \ud83d\ude00 日本 \\ \/ \t"}`, "u"},
		{"inner whitespace", `{ "id" : "w" , "a" : [ 1 , 2 ] }`, "w"},
		{"duplicate keys", `{"id":"d","a":1,"a":2}`, "d"},
		{"invalid utf-8 let through", "{\"id\":\"v\",\"s\":\"\xff\xfe\"}", "v"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse([]byte(tt.line))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if r.ID() != tt.id {
				t.Errorf("ID = %q, want %q", r.ID(), tt.id)
			}
			if got := string(r.AppendJSON(nil)); got != tt.line {
				t.Errorf("AppendJSON =\n %s\nwant\n %s", got, tt.line)
			}
		})
	}
}

func TestParseCopiesInput(t *testing.T) {
	// Input buffers are reused by the line reader; a parsed record must not alias them.
	buf := []byte(`{"id":"a","x":"yyy"}`)
	r, err := Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, strings.Repeat("#", len(buf)))
	if got := string(r.AppendJSON(nil)); got != `{"id":"a","x":"yyy"}` {
		t.Errorf("record changed with its input buffer: %s", got)
	}
	if string(r.Raw("x")) != `"yyy"` {
		t.Errorf("Raw(x) = %s", r.Raw("x"))
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, line string
		noID       bool   // the error is ErrNoID (the object itself is fine)
		msg        string // a substring of the error
	}{
		{"empty", ``, false, "not a JSON object"},
		{"array", `[1,2]`, false, "not a JSON object"},
		{"string", `"id"`, false, "not a JSON object"},
		{"unterminated object", `{"id":"a"`, false, "expected ',' or '}'"},
		{"trailing comma", `{"id":"a",}`, false, "expected object key"},
		{"missing colon", `{"id" "a"}`, false, "expected ':'"},
		{"bare word", `{"id":abc}`, false, "unexpected character"},
		{"bad literal", `{"id":"a","t":tru}`, false, "invalid literal"},
		{"bad number", `{"id":"a","n":-}`, false, "invalid number"},
		{"leading dot", `{"id":"a","n":.5}`, false, "unexpected character"},
		{"bad exponent", `{"id":"a","n":1e}`, false, "invalid number"},
		{"control char in string", "{\"id\":\"a\tb\"}", false, "control character"},
		{"bad escape", `{"id":"a\qb"}`, false, "invalid escape"},
		{"bad unicode escape", `{"id":"\u12G4"}`, false, "invalid \\u escape"},
		{"unterminated string", `{"id":"abc`, false, "unterminated string"},
		{"data after object", `{"id":"a"} {"id":"b"}`, false, "data after the object"},
		{"unterminated array", `{"id":"a","l":[1,2}`, false, "expected ',' or ']'"},
		{"no id", `{"x":1}`, true, `missing "id"`},
		{"null id", `{"id":null}`, true, `missing "id"`},
		{"empty string id", `{"id":""}`, true, `missing "id"`},
		{"float id", `{"id":1.5}`, true, `missing "id"`},
		{"exponent id", `{"id":1e3}`, true, `missing "id"`},
		{"object id", `{"id":{"a":1}}`, true, `missing "id"`},
		{"bool id", `{"id":true}`, true, `missing "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse([]byte(tt.line))
			if err == nil {
				t.Fatalf("Parse(%s) succeeded, want an error", tt.line)
			}
			if errors.Is(err, ErrNoID) != tt.noID {
				t.Errorf("errors.Is(err, ErrNoID) = %v, want %v (err: %v)", !tt.noID, tt.noID, err)
			}
			if tt.noID && r == nil {
				t.Errorf("a well-formed object without id should still return the record for error messages")
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
}

func TestParseSyntaxErrorOffset(t *testing.T) {
	// The offset in the message is 1-based so users can find the byte in an editor.
	_, err := Parse([]byte(`{"id":"a","x":?}`))
	if err == nil || !strings.Contains(err.Error(), "at byte 15") {
		t.Fatalf("err = %v, want it to name byte 15", err)
	}
}

func TestNestingGuard(t *testing.T) {
	deep := func(n int) string {
		return `{"id":"d","x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	}
	if _, err := Parse([]byte(deep(maxDepth - 1))); err != nil {
		t.Errorf("nesting %d: %v", maxDepth-1, err)
	}
	_, err := Parse([]byte(deep(maxDepth + 5)))
	if err == nil || !strings.Contains(err.Error(), "nesting too deep") {
		t.Errorf("nesting %d: err = %v, want nesting too deep", maxDepth+5, err)
	}
	// Unbalanced openers alone must fail on depth, not overflow the stack.
	_, err = Parse([]byte(`{"id":"d","x":` + strings.Repeat(`{"a":`, 200000)))
	if err == nil {
		t.Error("200000 unclosed objects parsed")
	}
}

func mustParse(t *testing.T, line string) *Record {
	t.Helper()
	r, err := Parse([]byte(line))
	if err != nil {
		t.Fatalf("Parse(%s): %v", line, err)
	}
	return r
}

func TestEdits(t *testing.T) {
	const in = `{"id":"r1","big":12345678901234567890123,"a":{"b":[1,2]},"s":"x"}`
	tests := []struct {
		name string
		edit func(*Record) error
		want string
	}{
		{"set new field appends", func(r *Record) error { return r.Set("n", 1) },
			`{"id":"r1","big":12345678901234567890123,"a":{"b":[1,2]},"s":"x","n":1}`},
		{"set existing replaces in place", func(r *Record) error { return r.Set("a", map[string]int{"z": 1, "y": 2}) },
			`{"id":"r1","big":12345678901234567890123,"a":{"y":2,"z":1},"s":"x"}`},
		{"set string without HTML escaping", func(r *Record) error { return r.Set("s", "<a&b>") },
			`{"id":"r1","big":12345678901234567890123,"a":{"b":[1,2]},"s":"<a&b>"}`},
		{"set raw", func(r *Record) error { r.SetRaw("raw", []byte(`[1.0,2e5]`)); return nil },
			`{"id":"r1","big":12345678901234567890123,"a":{"b":[1,2]},"s":"x","raw":[1.0,2e5]}`},
		{"delete", func(r *Record) error { r.Delete("a"); return nil },
			`{"id":"r1","big":12345678901234567890123,"s":"x"}`},
		{"delete absent keeps the line", func(r *Record) error { r.Delete("nope"); return nil }, in},
		{"set id", func(r *Record) error { r.SetID("r1#2"); return nil },
			`{"id":"r1#2","big":12345678901234567890123,"a":{"b":[1,2]},"s":"x"}`},
		{"set key needing escapes", func(r *Record) error { return r.Set(`k"<`, true) },
			`{"id":"r1","big":12345678901234567890123,"a":{"b":[1,2]},"s":"x","k\"<":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, in)
			if err := tt.edit(r); err != nil {
				t.Fatal(err)
			}
			if got := string(r.AppendJSON(nil)); got != tt.want {
				t.Errorf("got\n %s\nwant\n %s", got, tt.want)
			}
			if _, err := Parse(r.AppendJSON(nil)); err != nil {
				t.Errorf("edited record does not parse again: %v", err)
			}
		})
	}
}

func TestSetUnmarshalable(t *testing.T) {
	const in = `{"id":"a","x":1}`
	r := mustParse(t, in)
	if err := r.Set("f", func() {}); err == nil || !strings.Contains(err.Error(), `field "f"`) {
		t.Errorf("Set(func) err = %v, want an error naming the field", err)
	}
	if got := string(r.AppendJSON(nil)); got != in {
		t.Errorf("a failed Set changed the record: %s", got)
	}
}

func TestSetRawID(t *testing.T) {
	r := mustParse(t, `{"id":"a"}`)
	r.SetRaw("id", []byte(`42`))
	if r.ID() != "42" {
		t.Errorf("ID after SetRaw(42) = %q", r.ID())
	}
	r.SetRaw("id", []byte(`"b"`))
	if r.ID() != "b" {
		t.Errorf("ID after SetRaw(\"b\") = %q", r.ID())
	}
}

func TestDuplicateKeysLastWins(t *testing.T) {
	r := mustParse(t, `{"id":"a","id":"b","x":1,"x":2}`)
	if r.ID() != "b" || string(r.Raw("x")) != "2" {
		t.Errorf("ID=%q x=%s, want the last occurrence (as encoding/json)", r.ID(), r.Raw("x"))
	}
	if err := r.Set("x", 3); err != nil {
		t.Fatal(err)
	}
	var x int
	if err := r.Decode("x", &x); err != nil || x != 3 {
		t.Errorf("after Set, Decode(x) = %d, %v; want 3", x, err)
	}
}

func TestClone(t *testing.T) {
	orig := mustParse(t, `{"id":"p","a":[1],"b":"x"}`)
	c := orig.Clone()
	c.SetID("p#0")
	if err := c.Set("a", []int{9}); err != nil {
		t.Fatal(err)
	}
	c.Delete("b")
	if got := string(orig.AppendJSON(nil)); got != `{"id":"p","a":[1],"b":"x"}` {
		t.Errorf("original changed by edits to its clone: %s", got)
	}
	if got := string(c.AppendJSON(nil)); got != `{"id":"p#0","a":[9]}` {
		t.Errorf("clone = %s", got)
	}
	if orig.ID() != "p" || c.ID() != "p#0" {
		t.Errorf("ids: orig %q clone %q", orig.ID(), c.ID())
	}
	// An unedited clone serialises to the same JSON.
	if got := string(mustParse(t, `{"id":1,"z":{"k":2}}`).Clone().AppendJSON(nil)); got != `{"id":1,"z":{"k":2}}` {
		t.Errorf("unedited clone = %s", got)
	}
}

func TestAccessors(t *testing.T) {
	r := mustParse(t, `{"id":"a","s":"h\u00e9\n","n":null,"i":12,"o":{"k":[true]}}`)
	tests := []struct {
		key     string
		has     bool
		str     string
		rawWant string
	}{
		{"s", true, "hé\n", `"h\u00e9\n"`},
		{"n", false, "", "null"},
		{"i", true, "", "12"},
		{"o", true, "", `{"k":[true]}`},
		{"missing", false, "", ""},
	}
	for _, tt := range tests {
		if got := r.Has(tt.key); got != tt.has {
			t.Errorf("Has(%s) = %v", tt.key, got)
		}
		if got := r.String(tt.key); got != tt.str {
			t.Errorf("String(%s) = %q, want %q", tt.key, got, tt.str)
		}
		if got := string(r.Raw(tt.key)); got != tt.rawWant {
			t.Errorf("Raw(%s) = %s, want %s", tt.key, got, tt.rawWant)
		}
	}
	if got := strings.Join(r.Keys(), ","); got != "id,s,n,i,o" {
		t.Errorf("Keys = %s", got)
	}
	var o struct{ K []bool }
	if err := r.Decode("o", &o); err != nil || len(o.K) != 1 || !o.K[0] {
		t.Errorf("Decode(o) = %+v, %v", o, err)
	}
	untouched := 7
	if err := r.Decode("missing", &untouched); err != nil || untouched != 7 {
		t.Errorf("Decode of an absent field changed the target or failed: %d, %v", untouched, err)
	}
	var bad int
	if err := r.Decode("s", &bad); err == nil || !strings.Contains(err.Error(), `field "s"`) {
		t.Errorf("Decode type mismatch: err = %v, want it to name the field", err)
	}
}

func TestNewAndMarshalJSON(t *testing.T) {
	r := New("x&y")
	if err := r.Set("v", []string{"<p>"}); err != nil {
		t.Fatal(err)
	}
	outer, err := Marshal(map[string]any{"rec": r})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(outer); got != `{"rec":{"id":"x&y","v":["<p>"]}}` {
		t.Errorf("embedded record = %s", got)
	}
}

func TestFail(t *testing.T) {
	r := mustParse(t, `{"id":"a","x":1}`)
	if r.Errored() {
		t.Fatal("fresh record reports an error")
	}
	r.Fail(&Error{Stage: "judge", Kind: "http", Status: 503, Message: "down"})
	if !r.Errored() {
		t.Fatal("Fail did not set error")
	}
	want := `{"id":"a","x":1,"error":{"stage":"judge","kind":"http","status":503,"message":"down"}}`
	if got := string(r.AppendJSON(nil)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	var e Error
	if err := r.Decode("error", &e); err != nil || e.Error() != "judge: http (status 503): down" {
		t.Errorf("decoded error %q, %v", e.Error(), err)
	}
}

func TestAppendChanges(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Record)
		want string // "" when the changes cannot say it
	}{
		{"untouched", func(*Record) {}, `{"id":"a","k":1}`},
		{"added", func(r *Record) { r.Set("response", map[string]int{"n": 2}) }, `{"id":"a","response":{"n":2},"k":1}`},
		{"replaced", func(r *Record) { r.Set("model", "m2") }, `{"id":"a","model":"m2","k":1}`},
		{"added then deleted", func(r *Record) { r.Set("x", 1); r.Delete("x") }, `{"id":"a","k":1}`},
		{"parsed field deleted", func(r *Record) { r.Delete("request") }, ""},
		{"clone keeps what was set", func(r *Record) { r.Set("y", true); *r = *r.Clone() }, `{"id":"a","y":true,"k":1}`},
	} {
		r, err := Parse([]byte(`{"id":"a","model":"m","request":{"prompt":"long"}}`))
		if err != nil {
			t.Fatal(err)
		}
		tt.edit(r)
		got, ok := r.AppendChanges([]byte("x"), "k", []byte("1"))
		if tt.want == "" {
			if ok || string(got) != "x" {
				t.Errorf("%s: %s, %v; want nothing, false", tt.name, got, ok)
			}
			continue
		}
		if !ok || string(got) != "x"+tt.want {
			t.Errorf("%s: %s, %v; want %s", tt.name, got, ok, tt.want)
		}
	}
}

func TestFirst(t *testing.T) {
	for _, tc := range []struct {
		in, want      string
		ok, more, err bool
	}{
		{`[{"a":[1,2]},{"b":2}]`, `{"a":[1,2]}`, true, true, false},
		{` [ "x" , 1`, `"x"`, true, true, false}, // the rest is not read
		{`["x"]`, `"x"`, true, false, false},
		{`[ "x" ] `, `"x"`, true, false, false},
		{`[]`, ``, false, false, false},
		{`{"a":1}`, ``, false, false, true},
		{`[{"a":`, ``, false, false, true},
	} {
		got, ok, more, err := First([]byte(tc.in))
		if string(got) != tc.want || ok != tc.ok || more != tc.more || (err != nil) != tc.err {
			t.Errorf("First(%s) = %s, %v, %v, %v", tc.in, got, ok, more, err)
		}
	}
}

func TestJudgeModel(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":"a","judgement":{"score":1,"judge":{"model":"j"}}}`: "j",
		`{"id":"a","judgement":{"score":1}}`:                       "",
		`{"id":"a"}`:                                               "",
	} {
		rec, err := Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.JudgeModel(); got != want {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
}

// validUTF8 agrees with utf8.Valid on every sequence of up to four bytes
// taken from the edges of UTF-8's ranges, at every position in a word.
func TestValidUTF8Edges(t *testing.T) {
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	buf := []byte("abcdefgh")
	var seq func(n int)
	seq = func(n int) {
		for pad := range 8 {
			b := append([]byte(nil), buf[:pad]...)
			b = append(b, buf[8:]...)
			b = append(b, "tail of ascii text"[:pad]...)
			if got, want := validUTF8(b), utf8.Valid(b); got != want {
				t.Fatalf("validUTF8(%q) = %v, utf8.Valid %v", b, got, want)
			}
		}
		if n == 4 {
			return
		}
		for _, c := range edges {
			buf = append(buf, c)
			seq(n + 1)
			buf = buf[:len(buf)-1]
		}
	}
	seq(0)
}
