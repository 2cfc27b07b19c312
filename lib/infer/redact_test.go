package infer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
)

// A server, or a proxy in front of it, that echoes the Authorization header
// back in a reply must not leak the key into records, logs, --stats or
// stderr, in whatever shape the echo comes: each case is one such reply.
func TestEchoedKeyNeverLeaks(t *testing.T) {
	const key = "sk-echo-4f9a2b7c1d0e8f6a5b3c"
	pad := strings.Repeat("x", 180) // "Bearer " and the key then cross the 200-byte excerpt cut
	cases := []struct {
		name   string
		stream bool
		models bool // the echo is in /v1/models: the run cannot start
		reply  func(w http.ResponseWriter, auth string)
		kind   string
	}{
		{"HTML page with status 200", false, false, func(w http.ResponseWriter, auth string) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><body>proxy says: %s</body></html>", auth)
		}, "bad_response"},
		{"JSON 200 without choices", false, false, func(w http.ResponseWriter, auth string) {
			fmt.Fprintf(w, `{"object":"chat.completion","echo":%q}`, auth)
		}, "bad_response"},
		{"choice without a message", false, false, func(w http.ResponseWriter, auth string) {
			fmt.Fprintf(w, `{"choices":[{"index":0,"finish_reason":"stop","echo":%q}]}`, auth)
		}, "bad_response"},
		{"key across the excerpt's cut", false, false, func(w http.ResponseWriter, auth string) {
			fmt.Fprintf(w, "%s%s", pad, auth)
		}, "bad_response"},
		{"non-JSON SSE event", true, false, func(w http.ResponseWriter, auth string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: <%s>\n\n", auth)
		}, "bad_response"},
		{"malformed /v1/models", false, true, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(redact.Reset)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				auth := r.Header.Get("Authorization")
				if strings.HasSuffix(r.URL.Path, "/models") {
					if tc.models {
						fmt.Fprintf(w, "%s%s</html>", pad, auth)
						return
					}
					fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
					return
				}
				tc.reply(w, auth)
			}))
			defer srv.Close()
			dir := t.TempDir()
			keyFile, stats := filepath.Join(dir, "key"), filepath.Join(dir, "stats.json")
			os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
			args := []string{"--base-url", srv.URL, "--api-key-file", keyFile, "--stats", stats, "--max-retries", "1", "--retry-base", "1ms", "--max-failures", "inf"}
			if tc.stream {
				args = append(args, "--stream")
			}
			for _, format := range []string{"text", "json"} {
				code, stdout, stderr := runBatch(t, nil, append(args, "--log-format", format, writeInput(t, 2, 4))...)
				statsText, _ := os.ReadFile(stats)
				for name, text := range map[string]string{"stdout": string(stdout), "stderr": stderr, "stats": string(statsText)} {
					if strings.Contains(text, key[:12]) {
						t.Fatalf("--log-format %s: the key (or its first half) appears in %s:\n%s", format, name, text)
					}
				}
				if tc.models {
					if code != 1 || !strings.Contains(stderr, "not a model list") {
						t.Fatalf("exit %d, want 1 saying the reply is not a model list:\n%s", code, stderr)
					}
					continue
				}
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, stderr)
				}
				for _, r := range parseLines(t, stdout) {
					var e record.Error
					if r.Decode("error", &e) != nil || e.Kind != tc.kind || e.Attempts != 2 {
						t.Fatalf("record %s: error %+v, want kind %s after 2 attempts (a malformed reply is retried, never an empty success)", r.ID(), e, tc.kind)
					}
				}
			}
		})
	}
}

// Credentials in a base URL (http://user:pass@host) never reach a record's
// response.endpoint, a log line or --stats.
func TestURLCredentialsNeverLeak(t *testing.T) {
	t.Cleanup(redact.Reset)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
			return
		}
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://alice:pw-0f8e7d6c5b@", 1) + "/v1"
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, stderr := runBatch(t, nil, "--base-url", base, "--stats", stats, "--log-format", "json", writeInput(t, 2, 4))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	statsText, _ := os.ReadFile(stats)
	for name, text := range map[string]string{"stdout": string(stdout), "stderr": stderr, "stats": string(statsText)} {
		if strings.Contains(text, "pw-0f8e7d6c5b") {
			t.Fatalf("the URL's password appears in %s:\n%s", name, text)
		}
	}
	if !strings.Contains(string(stdout), `"endpoint":"http://127.0.0.1:`) {
		t.Errorf("records lack the endpoint without credentials:\n%s", stdout)
	}
}

// A key file with more than one line is a usage error at start-up.
func TestKeyFileOneLine(t *testing.T) {
	t.Cleanup(redact.Reset)
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("sk-first-line-1234\nsk-second-line-5678\n"), 0o600)
	code, _, stderr := runBatch(t, nil, "--base-url", "http://127.0.0.1:9/v1", "--api-key-file", keyFile, writeInput(t, 1, 4))
	if code != 2 || !strings.Contains(stderr, "more than one line") || strings.Contains(stderr, "sk-first") {
		t.Errorf("exit %d, stderr %q; want exit 2 saying the file has more than one line, without the key", code, stderr)
	}
}

// The leaks found by attacking the redaction: URL credentials sent as
// Basic authorization and echoed back in base64; a key that a server makes
// part of the model name, which names lake folders and manifest partition
// values; a key echoed inside JSON strings with its characters escaped.
func TestSecretsNeverLeakInAnyShape(t *testing.T) {
	t.Cleanup(redact.Reset)
	const key = `sk-x/y"z\w-0a1b2c3d` // a key with characters JSON escapes
	const password = "pw-9e8d7c6b5a"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, basic, _ := strings.Cut(r.Header.Get("Authorization"), "Basic ")
		if strings.HasSuffix(r.URL.Path, "/models") {
			// A model name made from the key, as a misconfigured proxy may.
			fmt.Fprintf(w, `{"data":[{"id":%q}]}`, "org/"+key)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("number 1\"")) {
			// An error page echoing the key escaped as PHP and others do.
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"bad key %s"}}`, strings.NewReplacer(`/`, `\/`, `"`, `\u0022`, `\`, `\\`).Replace(key))
			return
		}
		// A reply whose text quotes the Basic authorization, and the key.
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%q},"finish_reason":"stop"}]}`, "you sent "+basic+" and "+key)
	}))
	defer srv.Close()
	dir := t.TempDir()
	keyFile, stats := filepath.Join(dir, "key"), filepath.Join(dir, "stats.json")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	base := strings.Replace(srv.URL, "http://", "http://alice:"+password+"@", 1) + "/v1"
	lakeDir := filepath.Join(dir, "lake") + "/"
	code, _, stderr := runBatch(t, nil, "--base-url", base, "--api-key-file", keyFile, "--stats", stats, "--max-failures", "inf",
		"--partition-by", "model", "-o", lakeDir, writeInput(t, 3, 4))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + password))
	leaks := func(name, text string) {
		t.Helper()
		for _, secret := range []string{key, password, basic, `sk-x\/y`, `sk-x/y\"z`, "0a1b2c3d"} {
			if strings.Contains(text, secret) {
				t.Errorf("%q appears in %s:\n%s", secret, name, text)
			}
		}
	}
	statsText, _ := os.ReadFile(stats)
	leaks("stderr", stderr)
	leaks("--stats", string(statsText))
	var folders []string
	filepath.WalkDir(lakeDir, func(p string, d fs.DirEntry, err error) error {
		folders = append(folders, p)
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			if strings.HasSuffix(p, ".zst") {
				for _, r := range readRecords(t, p) {
					var resp record.Response
					var e record.Error
					r.Decode("response", &resp)
					r.Decode("error", &e)
					leaks(p+" (decoded)", resp.Text+e.Message+r.String("model"))
				}
			} else {
				leaks(p, string(b))
			}
		}
		return nil
	})
	leaks("folder names", strings.Join(folders, "\n"))
	if m, err := lake.ReadManifest(lakeDir); err != nil || len(m.Parts) == 0 || !strings.Contains(m.Parts[0].Path, "redacted") {
		t.Fatalf("the partition of the key's model: %v %+v", err, m)
	}
}
