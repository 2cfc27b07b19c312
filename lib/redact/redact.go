package redact

import (
	"bytes"
	"encoding/base64"
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
	secrets [][]byte  // longest first, so a secret that contains another goes whole
	inAny   [256]bool // the bytes the secrets hold: an escape of another byte cannot be part of one
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
	for i := range len(secret) {
		inAny[secret[i]] = true
	}
}

// AddURL registers the credentials of a URL: the password, user:pass as
// written (percent-encoded) and decoded, and the base64 of user:pass that
// Go's HTTP client sends as Basic authorization (a server that echoes the
// header echoes that).
func AddURL(raw string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return
	}
	if p, ok := u.User.Password(); ok {
		Add(p)
		Add(u.User.Username() + ":" + p)
		Add(base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p)))
	}
	Add(u.User.String())
}

func active() [][]byte {
	mu.RLock()
	defer mu.RUnlock()
	return secrets
}

// escaped reports whether b holds an escape that stands for a byte of a
// secret (an \n in a prompt does not, nor \" unless a key holds a quote):
// only then can a secret be there in an escaped form.
func escaped(b []byte) bool {
	mu.RLock()
	defer mu.RUnlock()
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return false
		}
		i += j
		c, n := escapeByte(b[i:])
		if n > 0 && inAny[c] {
			return true
		}
		i += max(n, 1)
	}
}

// Bytes returns b with every registered secret masked; b itself when none
// occurs (no copy on the hot path).
func Bytes(b []byte) []byte {
	secrets := active()
	if len(secrets) == 0 {
		return b
	}
	if !escaped(b) {
		for _, s := range secrets {
			if bytes.Contains(b, s) {
				b = bytes.ReplaceAll(b, s, []byte(Mask))
			}
		}
		return b
	}
	// Escapes: look for the secrets in the text as decoded, and mask where
	// each occurrence came from.
	v := unescape(b)
	var spans [][2]int
	for _, s := range secrets {
		for at := 0; ; {
			i := bytes.Index(v.d[at:], s)
			if i < 0 {
				break
			}
			i += at
			spans = append(spans, [2]int{v.start(i), v.end(i + len(s))})
			at = i + len(s)
		}
	}
	if len(spans) == 0 {
		return b
	}
	slices.SortFunc(spans, func(x, y [2]int) int { return x[0] - y[0] })
	out := make([]byte, 0, len(b))
	last := 0
	for _, sp := range spans {
		if sp[0] < last { // overlaps the one before: already masked
			if sp[1] > last {
				last = sp[1]
			}
			continue
		}
		out = append(out, b[last:sp[0]]...)
		out = append(out, Mask...)
		last = sp[1]
	}
	return append(out, b[last:]...)
}

// Found reports whether b holds a registered secret.
func Found(b []byte) bool {
	secrets := active()
	if len(secrets) == 0 {
		return false
	}
	d := b
	if escaped(b) {
		d = unescape(b).d
	}
	for _, s := range secrets {
		if bytes.Contains(d, s) {
			return true
		}
	}
	return false
}

// String is Bytes for a string.
func String(s string) string {
	if len(active()) == 0 {
		return s
	}
	return string(Bytes([]byte(s)))
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
	secrets, inAny = nil, [256]bool{}
	mu.Unlock()
}
