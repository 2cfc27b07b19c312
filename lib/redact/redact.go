package redact

import (
	"bytes"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "[redacted]"

// minLen keeps a short value (an empty key, "x" in a test URL) from masking
// every occurrence of a common string.
const minLen = 4

var (
	mu      sync.RWMutex
	secrets [][]byte // longest first, so a secret that contains another goes whole
)

// Add registers a secret for the life of the process.
func Add(secret string) {
	secret = strings.TrimSpace(secret)
	if len(secret) < minLen {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range secrets {
		if string(s) == secret {
			return
		}
	}
	secrets = append(secrets, []byte(secret))
	slices.SortFunc(secrets, func(a, b []byte) int { return len(b) - len(a) })
}

// AddURL registers the credentials of a URL: the password, and user:pass as
// written (percent-encoded) and decoded.
func AddURL(raw string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return
	}
	if p, ok := u.User.Password(); ok {
		Add(p)
		Add(u.User.Username() + ":" + p)
	}
	Add(u.User.String())
}

func active() [][]byte {
	mu.RLock()
	defer mu.RUnlock()
	return secrets
}

// Bytes returns b with every registered secret masked; b itself when none
// occurs (no copy on the hot path).
func Bytes(b []byte) []byte {
	for _, s := range active() {
		if bytes.Contains(b, s) {
			b = bytes.ReplaceAll(b, s, []byte(Mask))
		}
	}
	return b
}

// Found reports whether b holds a registered secret.
func Found(b []byte) bool {
	for _, s := range active() {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// String is Bytes for a string.
func String(s string) string {
	for _, sec := range active() {
		if strings.Contains(s, string(sec)) {
			s = strings.ReplaceAll(s, string(sec), Mask)
		}
	}
	return s
}

// Excerpt is s masked, trimmed and cut to at most n bytes (plus "…") for
// an error message. Masking comes first: a key cut in half by the shortening
// would no longer be found.
func Excerpt(s string, n int) string {
	s = strings.TrimSpace(String(s))
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// Writer masks secrets in everything written to w. Each Write is redacted on
// its own: log handlers and fmt.Fprint write a whole line at a time.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	q := Bytes(p)
	if _, err := w.w.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap gives the writer underneath (a terminal check needs the *os.File).
func (w writer) Unwrap() io.Writer { return w.w }

// Reset forgets every secret (tests).
func Reset() {
	mu.Lock()
	secrets = nil
	mu.Unlock()
}
