package record

import (
	"bytes"
	"testing"
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
