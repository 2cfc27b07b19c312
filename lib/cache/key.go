package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/record"
)

// Key is everything that decides a reply, kept in parts so that a miss can
// say which part differed from the nearest entry (--cache-explain).
type Key struct {
	// Model is the model id as the server reports it (/v1/models, or the
	// --model the server accepted).
	Model string `json:"model"`
	// Endpoint is set only when the user says the same model name means
	// different models on different endpoints (--cache-by-endpoint).
	Endpoint string `json:"endpoint,omitempty"`
	Path     string `json:"path"` // /chat/completions or /completions
	// Prompt is the sha256 of the canonical "messages" or "prompt".
	Prompt string `json:"prompt"`
	// Settings are every other field sent (temperature, top_p, max_tokens,
	// seed, stop, tools, ...) as one canonical JSON object; "model",
	// "stream" and "stream_options" are not settings (a streamed reply is
	// the same reply).
	Settings json.RawMessage `json:"settings"`
	Salt     string          `json:"salt,omitempty"` // --cache-salt
}

// notSettings are the request fields that are not part of Settings: the
// model is a part of its own, the prompt is hashed, and streaming changes how
// a reply travels, not what it is.
var notSettings = []string{"model", "messages", "prompt", "stream", "stream_options"}

// NewKey reads a request body as it is sent (a JSON object with "messages"
// or "prompt") into the parts of its key. Model, Endpoint and Salt are the
// caller's to set.
func NewKey(path string, body []byte) (Key, error) {
	obj, err := record.Object(body)
	if err != nil {
		return Key{}, fmt.Errorf("request: %w", err)
	}
	k := Key{Path: path}
	prompt := obj.Raw("messages")
	if prompt == nil {
		prompt = obj.Raw("prompt")
	}
	if prompt == nil {
		return Key{}, errors.New(`request has neither "messages" nor "prompt"`)
	}
	c, err := appendCanonical(make([]byte, 0, len(prompt)+64), prompt)
	if err != nil {
		return Key{}, fmt.Errorf("request: %w", err)
	}
	sum := sha256.Sum256(c)
	k.Prompt = hex.EncodeToString(sum[:])
	keys := obj.Keys()
	slices.Sort(keys)
	keys = slices.Compact(keys)
	s := []byte{'{'}
	for _, name := range keys {
		if slices.Contains(notSettings, name) {
			continue
		}
		if len(s) > 1 {
			s = append(s, ',')
		}
		s = appendString(s, name)
		s = append(s, ':')
		if s, err = appendCanonical(s, obj.Raw(name)); err != nil {
			return Key{}, fmt.Errorf("request %q: %w", name, err)
		}
	}
	k.Settings = append(s, '}')
	return k, nil
}

// Sum is the key's name: the sha256 (hex) of its parts, each written with
// its length, so no two different keys write the same bytes.
func (k Key) Sum() string {
	h := sha256.New()
	h.Write([]byte(format))
	for _, p := range []string{k.Model, k.Endpoint, k.Path, k.Prompt, string(k.Settings), k.Salt} {
		writePart(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writePart(h hash.Hash, p string) {
	fmt.Fprintf(h, "%d:", len(p))
	io.WriteString(h, p)
}

// appendCanonical appends one JSON value in canonical form: object keys
// sorted (a repeated key once, its first value), no white space, strings
// escaped one way, numbers written one way (1, 1.0 and 1e0 are 1), so a
// request reformatted by another tool (jq, a notebook) keeps its key.
func appendCanonical(dst, raw []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("empty JSON value")
	}
	switch raw[0] {
	case '{':
		obj, err := record.Object(raw)
		if err != nil {
			return nil, err
		}
		keys := obj.Keys()
		slices.Sort(keys)
		keys = slices.Compact(keys)
		dst = append(dst, '{')
		for i, name := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, name)
			dst = append(dst, ':')
			if dst, err = appendCanonical(dst, obj.Raw(name)); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case '[':
		elems, err := record.Elements(raw)
		if err != nil {
			return nil, err
		}
		dst = append(dst, '[')
		for i, el := range elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendCanonical(dst, el); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case '"':
		s, err := record.Unquote(raw)
		if err != nil {
			return nil, err
		}
		return appendString(dst, s), nil
	case 't', 'f', 'n':
		switch string(raw) {
		case "true", "false", "null":
			return append(dst, raw...), nil
		}
		return nil, fmt.Errorf("not a JSON value: %.20q", raw)
	}
	return appendNumber(dst, raw)
}

// appendNumber writes a number: an integer literal digit for digit (a
// 64-bit seed beyond 2^53 stays exact), any other number as the shortest
// decimal that reads back as the same float64, an integral one as an
// integer (1.0 and 1e0 are 1).
func appendNumber(dst, raw []byte) ([]byte, error) {
	s := string(raw)
	if !json.Valid(raw) {
		return nil, fmt.Errorf("not a JSON number: %.20q", s)
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.AppendInt(dst, i, 10), nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return strconv.AppendUint(dst, u, 10), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return append(dst, raw...), nil // beyond float64: as written
	case math.Trunc(f) == f && math.Abs(f) <= 1<<53:
		return strconv.AppendInt(dst, int64(f), 10), nil
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
}

// appendString writes s as a JSON string: only '"', '\\' and control
// characters escaped, everything else as it is (invalid UTF-8 was already
// read as U+FFFD).
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// settings decodes a key's Settings into its fields, for --cache-explain.
func (k Key) settings() map[string]string {
	out := map[string]string{}
	obj, err := record.Object(k.Settings)
	if err != nil {
		return out
	}
	for _, name := range obj.Keys() {
		v := obj.Raw(name)
		if !utf8.Valid(v) {
			continue
		}
		out[name] = string(v)
	}
	return out
}
