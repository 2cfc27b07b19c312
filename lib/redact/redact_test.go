package redact

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Cleanup(Reset)
	Add("sk-live-0123456789")
	Add("  sk-live-0123456789\n") // the same key from a key file
	Add("ab")                     // too short to mask
	AddURL("http://alice:s3cr%21t@gpu01:8000/v1")
	tests := []struct{ in, want string }{
		{"Bearer sk-live-0123456789 echoed", "Bearer [redacted] echoed"},
		{"<html>sk-live-0123456789sk-live-0123456789</html>", "<html>[redacted][redacted]</html>"},
		{"GET http://alice:s3cr%21t@gpu01:8000/v1/models", "GET http://[redacted]@gpu01:8000/v1/models"},
		{"password s3cr!t alone", "password [redacted] alone"},
		{"ab cd", "ab cd"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(Bytes([]byte(tt.in))); got != tt.want {
			t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var buf bytes.Buffer
	n, err := Writer(&buf).Write([]byte("key=sk-live-0123456789\n"))
	if err != nil || n != len("key=sk-live-0123456789\n") || strings.Contains(buf.String(), "sk-live") {
		t.Errorf("Writer: %d, %v, %q", n, err, buf.String())
	}
}

// A key echoed inside a JSON or Go string may be escaped in any of its
// characters: \/ (PHP, many proxies), \u00XX (any case, a surrogate pair),
// \" and \\ (a key that holds them), as a log line quotes it.
func TestEscapedForms(t *testing.T) {
	t.Cleanup(Reset)
	Add(`sk-a/b"c\d<e`)
	Add("sk-ünïcode-key-9")
	tests := []struct{ in, want string }{
		{`{"error":"bad key sk-a\/b\"c\\d\u003ce"}`, `{"error":"bad key [redacted]"}`},
		{`"sk-a/b\"c\\d<e"`, `"[redacted]"`},
		{`\u0073\u006B\u002d\u0061\u002F\u0062\u0022\u0063\u005c\u0064\u003C\u0065 tail\n`, `[redacted] tail\n`},
		{`key=sk-\u00fcn\u00efcode-key-9\n next`, `key=[redacted]\n next`},
		{`"sk-\xc3\xbcnïcode-key-9"`, `"[redacted]"`},
		{`no secret here\n but escapes \u0041`, `no secret here\n but escapes \u0041`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%s) = %s, want %s", tt.in, got, tt.want)
		}
		if Found([]byte(tt.in)) != (tt.in != tt.want) {
			t.Errorf("Found(%s) = %v", tt.in, !(tt.in != tt.want))
		}
	}
}

// Go's HTTP client sends a URL's credentials as Basic authorization: the
// base64 a server echoes is masked too.
func TestBasicAuthEcho(t *testing.T) {
	t.Cleanup(Reset)
	AddURL("http://alice:s3cr%21t@gpu01:8000/v1")
	echo := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cr!t"))
	if got := String(echo); got != "Authorization: Basic [redacted]" {
		t.Errorf("%s", got)
	}
}

// Args masks the values of flags marked secret where they are declared, and
// the credentials of every URL, also the second of a comma-separated list;
// flags merely named like a secret (--max-tokens, --tokenizer) stay.
func TestArgs(t *testing.T) {
	t.Cleanup(Reset)
	Flag("api-key-file")
	Flag("judge-api-key-file")
	got := Args([]string{"infer-batch", "--api-key-file", "k.txt", "--judge-api-key-file=j.txt", "--max-tokens", "64", "--tokenizer=o200k_base",
		"--base-url", "http://u:pw@h:8000/v1,https://v:pw2@g/v1", "--judge-base-url=https://a:b@j/v1", "in.jsonl"})
	want := []string{"infer-batch", "--api-key-file", "[redacted]", "--judge-api-key-file=[redacted]", "--max-tokens", "64", "--tokenizer=o200k_base",
		"--base-url", "http://[redacted]@h:8000/v1,https://[redacted]@g/v1", "--judge-base-url=https://[redacted]@j/v1", "in.jsonl"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
	if !IsFlag("--api-key-file") || IsFlag("max-tokens") || IsFlag("tokenizer") {
		t.Error("IsFlag")
	}
}
