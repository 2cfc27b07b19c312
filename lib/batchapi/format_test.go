package batchapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseOutput(t *testing.T) {
	for _, tc := range []struct {
		line, err, msg string
	}{
		{`{"id":"b1","custom_id":"a","response":{"status_code":200,"request_id":"r","body":{}},"error":null}`, "", ""},
		{`{"id":"b1","custom_id":"a","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}`, "", "batch_expired: This request could not be executed before the completion window expired."},
		{`{"custom_id":"a","error":"engine died"}`, "", "engine died"},
		{`{"custom_id":"a","error":{"code":"x"}}`, "", "x"},
		{`{"id":"b1","response":{"status_code":200}}`, `without "custom_id"`, ""},
		{`{"custom_id":"a"}`, "neither a response nor an error", ""},
		{`{"custom_id":"a","error":null,"response":null}`, "neither a response nor an error", ""},
		{`[1]`, "not a batch result line", ""},
	} {
		o, err := ParseOutput([]byte(tc.line))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || o.ErrorMessage() != tc.msg {
			t.Errorf("%s: %v, message %q, want %q", tc.line, err, o.ErrorMessage(), tc.msg)
		}
	}
}

// A success wins over an error for the same id, whatever the order.
func TestResultsPreferSuccess(t *testing.T) {
	ok := `{"custom_id":"a","response":{"status_code":200,"body":{}}}`
	bad := `{"custom_id":"a","response":{"status_code":500,"body":{}}}`
	for _, order := range [][]string{{ok, bad}, {bad, ok}} {
		rs := NewResults()
		if err := rs.ReadFrom("f", strings.NewReader(strings.Join(order, "\n")+"\n\n")); err != nil {
			t.Fatal(err)
		}
		o, found := rs.Take("a")
		if !found || o.Response.StatusCode != 200 || rs.Len() != 0 {
			t.Fatalf("%v: got %+v", order, o)
		}
	}
	err := NewResults().ReadFrom("f.jsonl", strings.NewReader(ok+"\nnot json\n"))
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:2:") {
		t.Fatalf("a bad line: %v", err)
	}
}

func TestAppendInput(t *testing.T) {
	line := AppendInput(nil, `id "1"`, URLChat, []byte(`{"model":"m","messages":[]}`))
	var in Input
	if err := json.Unmarshal(line, &in); err != nil || in.CustomID != `id "1"` || in.Method != "POST" || in.URL != URLChat || string(in.Body) != `{"model":"m","messages":[]}` || line[len(line)-1] != '\n' {
		t.Fatalf("%s: %+v %v", line, in, err)
	}
}

// Any line either parses into a result with a custom_id and a response or
// an error message, or is refused; nothing panics.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		`{"id":"b","custom_id":"a","response":{"status_code":200,"request_id":"r","body":{"choices":[]}},"error":null}`,
		`{"custom_id":"a","error":"x"}`, `{"custom_id":"","error":{}}`, `{}`, `null`, `{"custom_id":"a","error":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		o, err := ParseOutput(line)
		if err != nil {
			return
		}
		if o.CustomID == "" || (o.Response == nil && o.ErrorMessage() == "") {
			t.Fatalf("%q parsed into %+v", line, o)
		}
	})
}

// InputSize is the length of AppendInput's line, for ids that need escaping too.
func TestInputSize(t *testing.T) {
	for _, id := range []string{"a", `q"uote\`, "é\u2028", "bad\xff"} {
		body := []byte(`{"messages":[{"role":"user","content":"hi"}]}`)
		if got, want := InputSize(id, URLChat, body), len(AppendInput(nil, id, URLChat, body)); got != want {
			t.Errorf("%q: InputSize %d, line %d", id, got, want)
		}
	}
}
