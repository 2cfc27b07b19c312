package redact

import (
	"bytes"
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
