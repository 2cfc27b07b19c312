package redact

import (
	"strings"
	"sync"
)

var (
	flagMu      sync.RWMutex
	secretFlags = map[string]bool{}
)

// Flag marks a flag that holds a secret, or names the file that does: use
// it where the flag is declared (Name: redact.Flag("api-key-file")). Args
// masks its value in a command line, and a run's settings leave it out
// (IsFlag); it returns name.
func Flag(name string) string {
	flagMu.Lock()
	secretFlags[name] = true
	flagMu.Unlock()
	return name
}

// IsFlag reports whether a flag (by any name it was marked with) is secret.
func IsFlag(name string) bool {
	flagMu.RLock()
	defer flagMu.RUnlock()
	return secretFlags[strings.TrimLeft(name, "-")]
}

// Args is a command line as a program writes it down (manifests): the
// values of marked flags (-f v, -f=v, --f v, --f=v) masked, and in every
// other argument the credentials of each URL (Value). Nothing else changes.
func Args(args []string) []string {
	out := make([]string, len(args))
	hide := false
	for i, a := range args {
		switch {
		case hide:
			a, hide = Mask, false
		case strings.HasPrefix(a, "-"):
			if k, _, ok := strings.Cut(a, "="); ok && IsFlag(k) {
				a = k + "=" + Mask
			} else if !ok && IsFlag(a) {
				hide = true
			}
		}
		out[i] = Value(a)
	}
	return out
}

// Value is a flag's value (or any text) as a program writes it down: the
// user info of every URL in it masked (a comma-separated list holds
// several), and every registered secret (String).
func Value(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		host := strings.IndexAny(s, "/?#, \t\"'")
		if host < 0 {
			host = len(s)
		}
		if at := strings.LastIndexByte(s[:host], '@'); at >= 0 {
			b.WriteString(Mask)
			s = s[at:]
		}
	}
	b.WriteString(s)
	return String(b.String())
}
