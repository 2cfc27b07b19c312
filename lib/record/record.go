package record

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	json "github.com/goccy/go-json"
)

type member struct {
	key    string // unescaped
	rawKey []byte
	val    []byte
	set    bool // by Set or SetRaw, not as parsed
}

// Record is one parsed line. Values are kept as the exact bytes they arrived in;
// a record that nobody changed is written back as the original line.
type Record struct {
	line    []byte // the original line, reused while unmodified
	members []member
	dirty   bool
	deleted bool // a parsed field was deleted (AppendChanges cannot say so)
	id      string
}

// ErrNoID is returned by Parse for an object without a usable id.
var ErrNoID = errors.New(`missing "id" (a string or an integer)`)

// Parse reads one JSON object. The record keeps its own copy of line.
func Parse(line []byte) (*Record, error) {
	return parse(bytes.Clone(line))
}

// ParseOwned is Parse without the copy, for callers that hand over the buffer.
func ParseOwned(line []byte) (*Record, error) { return parse(line) }

func parse(b []byte) (*Record, error) {
	r, err := Object(b)
	if err != nil {
		return nil, err
	}
	id, err := idOf(r.Raw("id"))
	if err != nil {
		return r, err
	}
	r.id = id
	return r, nil
}

// Object reads the members of one JSON object, without copying b and
// without asking for an id: a request body inside a record, read field by
// field where decoding it would copy a 455 KB prompt several times.
func Object(b []byte) (*Record, error) { return object(b, false) }

// CheckedObject is Object for bytes already checked: a field of a parsed
// record (or of one built with Set and SetRaw), or Marshal's output. It
// finds where each value ends without checking it again: a 455 KB string
// is one jump to its closing quote (a request read from a record is
// otherwise checked once per level it is read at). On bytes that are not
// valid JSON it gives an error or members that mean nothing, and never
// panics.
func CheckedObject(b []byte) (*Record, error) { return object(b, true) }

func object(b []byte, checked bool) (*Record, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	r := &Record{line: b}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, &syntaxError{i, "expected object key"}
			}
			ks := i
			var err error
			if i, err = skip(b, i, checked); err != nil {
				return nil, err
			}
			rawKey := b[ks:i]
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return nil, &syntaxError{i, "expected ':' after object key"}
			}
			vs := skipSpace(b, i+1)
			if i, err = skip(b, vs, checked); err != nil {
				return nil, err
			}
			key, err := unquote(rawKey)
			if err != nil {
				return nil, err
			}
			r.members = append(r.members, member{key: key, rawKey: rawKey, val: b[vs:i]})
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return nil, &syntaxError{i, "expected ',' or '}' in object"}
		}
	}
	if i = skipSpace(b, i); i != len(b) {
		return nil, &syntaxError{i, "data after the object"}
	}
	return r, nil
}

// Elements returns the elements of a JSON array as raw bytes, without
// copying b.
func Elements(b []byte) ([][]byte, error) { return elements(b, false) }

// CheckedElements is Elements for bytes already checked (CheckedObject).
func CheckedElements(b []byte) ([][]byte, error) { return elements(b, true) }

func elements(b []byte, checked bool) ([][]byte, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, errors.New("not a JSON array")
	}
	var out [][]byte
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		i++
	} else {
		for {
			vs := i
			var err error
			if i, err = skip(b, vs, checked); err != nil {
				return nil, err
			}
			out = append(out, b[vs:i])
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				i++
				break
			}
			return nil, &syntaxError{i, "expected ',' or ']' in array"}
		}
	}
	if i = skipSpace(b, i); i != len(b) {
		return nil, &syntaxError{i, "data after the array"}
	}
	return out, nil
}

// First returns the first element of a JSON array as raw bytes (ok false
// for an empty array) without reading the rest: a reply that holds millions
// of elements costs nothing more than one. more says whether another element
// follows it.
func First(b []byte) (elem []byte, ok, more bool, err error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false, false, errors.New("not a JSON array")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil, false, false, nil
	}
	end, err := skipValue(b, i, 1)
	if err != nil {
		return nil, false, false, err
	}
	next := skipSpace(b, end)
	return b[i:end], true, next < len(b) && b[next] == ',', nil
}

func unquote(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	return Unquote(raw)
}

// Unquote is the value of a JSON string, as json.Unmarshal into a string
// gives it, in one pass and one copy for valid UTF-8 (the decoder copies a
// 455 KB prompt three times: its input, the unescaped bytes, the string).
func Unquote(raw []byte) (string, error) { return unquoteOr(raw, false) }

// CheckedUnquote is Unquote for a string already checked (a member of
// CheckedObject, of a parsed record): it jumps from escape to escape
// (IndexByte) instead of checking every byte for a quote or a control
// character. Its UTF-8 is checked as Unquote checks it. On a string that
// is not valid JSON it gives what Unquote gives, or text that means
// nothing, and never panics.
func CheckedUnquote(raw []byte) (string, error) { return unquoteOr(raw, true) }

func unquoteOr(raw []byte, checked bool) (string, error) {
	if s, ok := unquoteValid(raw, checked); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(raw, &s) // the decoder's error, or its U+FFFD for invalid UTF-8
	return s, err
}

// unquoteValid is Unquote of a valid JSON string of valid UTF-8, checked
// as it is copied unless checked says it was; ok is false for anything
// else. It copies eight bytes at a time and stops only at an escape (and,
// unchecked, at a quote or a control character): code in a prompt has an
// escape every dozen bytes, where a call per run of plain bytes cost more
// than the copy.
func unquoteValid(raw []byte, checked bool) (_ string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || !validUTF8(raw) {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if raw[len(raw)-1] != '"' {
		return "", false
	}
	// Unescaped text is never longer than its escapes, so the writes
	// (eight bytes at a time, k <= i) stay inside dst.
	dst := make([]byte, len(body))
	src, out := unsafe.Pointer(unsafe.SliceData(body)), unsafe.Pointer(unsafe.SliceData(dst))
	k := 0
	for i := 0; ; {
		for i+8 <= len(body) {
			w := *(*uint64)(unsafe.Add(src, i))
			*(*uint64)(unsafe.Add(out, k)) = w
			m := hasZeroByte(w ^ (swarOnes * '\\'))
			if !checked {
				m = specialBytes(w)
			}
			if m != 0 {
				// The lowest flagged byte is a real one (plainRun).
				t := bits.TrailingZeros64(m) >> 3
				i, k = i+t, k+t
				break
			}
			i, k = i+8, k+8
		}
		for i < len(body) && body[i] != '\\' && (checked || body[i] != '"' && body[i] >= 0x20) {
			dst[k] = body[i]
			i, k = i+1, k+1
		}
		if i == len(body) {
			return unsafe.String(unsafe.SliceData(dst), k), true
		}
		if body[i] != '\\' || i+1 == len(body) {
			return "", false // a quote before the end, a control character, or an escape cut by the end
		}
		switch c := body[i+1]; {
		case c == 'u':
			r, ok := hex4(body, i)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A valid pair is one character; anything else is U+FFFD
				// and the next escape stands alone, as in encoding/json.
				r2, ok := hex4(body, i)
				if d := utf16.DecodeRune(r, r2); ok && d != unicode.ReplacementChar {
					r = d
					i += 6
				} else {
					r = unicode.ReplacementChar
				}
			}
			k += utf8.EncodeRune(dst[k:], r)
		case unescaped[c] != 0:
			dst[k] = unescaped[c]
			i, k = i+2, k+1
		default:
			return "", false
		}
	}
}

// unescaped is the byte each two-byte escape stands for, by its letter.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 is the code unit of the \\uXXXX escape at raw[i:]; ok is false when
// there is none.
func hex4(raw []byte, i int) (r rune, ok bool) {
	if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	for _, c := range raw[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func idOf(raw []byte) (string, error) {
	if len(raw) == 0 {
		return "", ErrNoID
	}
	switch raw[0] {
	case '"':
		s, err := unquote(raw)
		if err != nil || s == "" {
			return "", ErrNoID
		}
		return s, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		// Integer ids are kept as their literal text: 2^64+1 stays exact.
		if bytes.ContainsAny(raw, ".eE") {
			return "", ErrNoID
		}
		return string(raw), nil
	}
	return "", ErrNoID
}

// New makes an empty record with the given id.
func New(id string) *Record {
	r := &Record{}
	r.SetID(id)
	return r
}

// ID is the record's id as text.
func (r *Record) ID() string { return r.id }

// SetID replaces the id (a string).
func (r *Record) SetID(id string) {
	r.id = id
	r.setRaw("id", quote(id))
}

func quote(s string) []byte {
	b, _ := Marshal(s)
	return b
}

// Raw is the exact bytes of a field's value, or nil when absent.
func (r *Record) Raw(key string) []byte {
	for i := len(r.members) - 1; i >= 0; i-- { // last wins, as in encoding/json
		if r.members[i].key == key {
			return r.members[i].val
		}
	}
	return nil
}

// Has reports whether a field is present (a JSON null counts as absent).
func (r *Record) Has(key string) bool {
	v := r.Raw(key)
	return v != nil && string(v) != "null"
}

// Keys lists the field names in order.
func (r *Record) Keys() []string {
	ks := make([]string, len(r.members))
	for i, m := range r.members {
		ks[i] = m.key
	}
	return ks
}

// Decode unmarshals one field into v; an absent field leaves v untouched.
func (r *Record) Decode(key string, v any) error {
	raw := r.Raw(key)
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("field %q: %w", key, err)
	}
	return nil
}

// String returns a string field, or "" when absent or not a string.
func (r *Record) String(key string) string {
	var s string
	if raw := r.Raw(key); len(raw) > 0 && raw[0] == '"' {
		s, _ = unquote(raw)
	}
	return s
}

// Set marshals v into a field, replacing it in place or appending it at the end.
func (r *Record) Set(key string, v any) error {
	b, err := Marshal(v)
	if err != nil {
		return fmt.Errorf("field %q: %w", key, err)
	}
	r.setRaw(key, b)
	return nil
}

// SetRaw stores already-encoded JSON. The caller guarantees it is valid.
func (r *Record) SetRaw(key string, raw []byte) {
	if key == "id" {
		if id, err := idOf(raw); err == nil {
			r.id = id
		}
	}
	r.setRaw(key, raw)
}

func (r *Record) setRaw(key string, raw []byte) {
	r.dirty = true
	for i := len(r.members) - 1; i >= 0; i-- {
		if r.members[i].key == key {
			r.members[i].val, r.members[i].set = raw, true
			return
		}
	}
	r.members = append(r.members, member{key: key, rawKey: quote(key), val: raw, set: true})
}

// Delete removes a field.
func (r *Record) Delete(key string) {
	out := r.members[:0]
	for _, m := range r.members {
		if m.key != key {
			out = append(out, m)
		} else {
			r.dirty = true
			r.deleted = r.deleted || !m.set
		}
	}
	r.members = out
}

// Clone returns a deep copy that can be changed independently.
func (r *Record) Clone() *Record {
	c := &Record{id: r.id, dirty: true, deleted: r.deleted, members: make([]member, len(r.members))}
	for i, m := range r.members {
		c.members[i] = member{key: m.key, rawKey: bytes.Clone(m.rawKey), val: bytes.Clone(m.val), set: m.set}
	}
	return c
}

// AppendJSON appends the record as one line of JSON, without the newline.
func (r *Record) AppendJSON(dst []byte) []byte {
	if !r.dirty && r.line != nil {
		return append(dst, bytes.TrimSpace(r.line)...)
	}
	dst = append(dst, '{')
	for i, m := range r.members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, m.rawKey...)
		dst = append(dst, ':')
		dst = append(dst, m.val...)
	}
	return append(dst, '}')
}

// AppendChanges appends one JSON object: the id, the fields set since the
// record was parsed, and key with the already-encoded value raw. It is what
// a stage added to a record it read, without the fields that passed through
// (infer-batch's journal keeps answers, not 455 KB prompts again). ok is
// false, and nothing is appended, when a parsed field was deleted: the
// changes cannot say so.
func (r *Record) AppendChanges(dst []byte, key string, raw []byte) (out []byte, ok bool) {
	if r.deleted {
		return dst, false
	}
	dst = append(append(append(dst, `{"id":`...), r.Raw("id")...), ',')
	for _, m := range r.members {
		if m.set && m.key != "id" && m.key != key {
			dst = append(append(append(append(dst, m.rawKey...), ':'), m.val...), ',')
		}
	}
	return append(append(append(append(dst, quote(key)...), ':'), raw...), '}'), true
}

// MarshalJSON makes a Record embeddable in other JSON values.
func (r *Record) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// Marshal encodes v without HTML escaping, so prompts and replies stay readable
// ("<", ">" and "&" are common in them); map keys come out sorted.
func Marshal(v any) ([]byte, error) {
	return json.MarshalWithOption(v, json.DisableHTMLEscape())
}

// Unmarshal is the project's one JSON decoder (goccy behind one name).
func Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Quote returns s as a JSON string literal.
func Quote(s string) []byte { return quote(s) }
