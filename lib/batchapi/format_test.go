package batchapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
		rs := NewResults(t.TempDir())
		if err := rs.ReadFrom("f", strings.NewReader(strings.Join(order, "\n")+"\n\n"), nil); err != nil {
			t.Fatal(err)
		}
		o, found, err := rs.Take("a")
		if err != nil || !found || o.Response.StatusCode != 200 || rs.Len() != 0 {
			t.Fatalf("%v: got %+v, %v", order, o, err)
		}
	}
	err := NewResults(t.TempDir()).ReadFrom("f.jsonl", strings.NewReader(ok+"\nnot json\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:2:") {
		t.Fatalf("a bad line: %v", err)
	}
}

// Results larger than the memory limit (lowered here from MemLimit) are
// indexed as they download and wait in a spill file: memory never holds
// more than the limit of result lines, every result comes back whole (a
// success still wins over an error across the spill), results of ids not
// kept are not stored, and Close removes the spill file. The results file
// is served over HTTP, as a batch's output file is, and read as it arrives.
func TestResultsStreamPastMemoryLimit(t *testing.T) {
	const n, limit = 300, 8 << 10
	body := strings.Repeat("a long reply ", 40)
	var file strings.Builder
	file.WriteString(`{"custom_id":"r7","response":{"status_code":200,"body":{"text":"first"}}}` + "\n")
	for i := range n {
		fmt.Fprintf(&file, `{"id":"b_%d","custom_id":"r%d","response":{"status_code":200,"body":{"text":"%s %d"}},"error":null}`+"\n", i, i, body, i)
	}
	file.WriteString(`{"custom_id":"r9","response":{"status_code":500,"body":{}}}` + "\n") // an error after a success: ignored
	if file.Len() < 20*limit {
		t.Fatalf("the results file has %d bytes: want it well past the %d-byte limit", file.Len(), limit)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/files/file-out/content" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, file.String())
	}))
	defer srv.Close()
	cl := &Client{HTTP: srv.Client(), Base: srv.URL + "/v1"}

	dir := t.TempDir()
	rs := NewResults(dir)
	rs.limit = limit
	keep := func(id string) bool { return id != "r3" }
	if err := cl.ReadResults(context.Background(), "file-out", "b/file-out", rs, keep); err != nil {
		t.Fatal(err)
	}
	if len(rs.mem) > limit || rs.spill == nil || rs.Len() != n-1 {
		t.Fatalf("%d bytes in memory (limit %d), spill file %v, %d results", len(rs.mem), limit, rs.spill != nil, rs.Len())
	}
	if spills, _ := filepath.Glob(filepath.Join(dir, ".ifkit-batch-results-*")); len(spills) != 1 {
		t.Fatalf("spill files %v", spills)
	}
	for i := n - 1; i >= 0; i-- { // out of file order, as records come
		o, found, err := rs.Take(fmt.Sprintf("r%d", i))
		if i == 3 {
			if found || err != nil {
				t.Errorf("r3 was not kept, yet: %+v, %v", o, err)
			}
			continue
		}
		if want := fmt.Sprintf(`{"text":"%s %d"}`, body, i); err != nil || !found || string(o.Response.Body) != want || o.Response.StatusCode != 200 {
			t.Fatalf("r%d: %+v, %v", i, o, err)
		}
	}
	if rs.Len() != 0 {
		t.Errorf("%d results left", rs.Len())
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Close left %v", left)
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
