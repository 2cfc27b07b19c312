package lake

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxName is the longest folder name written: NAME_MAX of Linux, macOS and
// Windows file systems (bytes; some count UTF-16 units, never more).
const MaxName = 255

// namer gives each partition value of a run its own folder name, so that
// no two values share a folder, whatever the file system:
//
//   - a value whose FIELD=value is longer than MaxName keeps as much of its
//     escaped text as fits and ends in "~" and a hash of the whole value
//     (a run would otherwise fail at the first such record, after paying
//     for the answers before it);
//   - a name that differs from one already taken only in letter case or
//     Unicode normalization (Qwen and qwen share one folder on macOS's and
//     Windows' file systems, é and e + U+0301 on macOS's; the first value
//     seen keeps the plain name) gets the same "~hash" ending, and so does a
//     value spelled like the default partition's name.
//
// The manifest lists every part's values as they are, so ifkit reads them
// back exactly; DuckDB and Spark read the folder name, ending included.
type namer struct {
	mu    sync.Mutex
	names map[string]string   // (parent, key, value) → folder name
	taken map[string]struct{} // parent/name, folded
}

// folder is the relative folder of one combination of values, and the
// values as the manifest lists them (nil for the default partition).
func (nm *namer) folder(keys []Key, vals []string, present []bool) (string, map[string]*string) {
	nm.mu.Lock()
	defer nm.mu.Unlock()
	if nm.names == nil {
		nm.names, nm.taken = map[string]string{}, map[string]struct{}{}
	}
	rel := ""
	m := make(map[string]*string, len(keys))
	for i, k := range keys {
		id := rel + "\x00" + k.Name + "\x00"
		text := DefaultPartition
		if present[i] {
			v := vals[i]
			m[k.Name] = &v
			id += "=" + v
			text = Escape(v)
		} else {
			m[k.Name] = nil
		}
		name, ok := nm.names[id]
		if !ok {
			// The default partition's name is its own, taken or not: a
			// value spelled like it always gets the ending.
			first := 0
			if present[i] && strings.EqualFold(text, DefaultPartition) {
				first = 1
			}
			name = nm.name(rel, k.Name, text, id, first)
			nm.names[id] = name
		}
		rel = path.Join(rel, name)
	}
	return rel, m
}

// name is the first free folder name for a value: its escaped text when it
// fits and is free (and first is 0), else text cut to fit and "~" with a
// hash of id.
func (nm *namer) name(parent, key, text, id string, first int) string {
	for n := first; ; n++ {
		name := key + "=" + text
		if n > 0 || len(name) > MaxName {
			sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s", n, id))
			end := "~" + hex.EncodeToString(sum[:])[:16]
			name = key + "=" + cut(text, MaxName-len(key)-1-len(end)) + end
		}
		if fold := fold(path.Join(parent, name)); !has(nm.taken, fold) {
			nm.taken[fold] = struct{}{}
			return name
		}
	}
}

func has(m map[string]struct{}, k string) bool { _, ok := m[k]; return ok }

// fold is a folder name as a file system that ignores letter case and
// Unicode normalization (macOS: "é" and "e" with a combining accent are one
// name) sees it.
func fold(name string) string { return strings.ToLower(norm.NFD.String(name)) }

// cut is the longest prefix of an escaped text within max bytes that ends
// neither inside a %XX escape nor inside a UTF-8 sequence.
func cut(text string, max int) string {
	i := 0
	for i < len(text) {
		n := 3
		if text[i] != '%' {
			_, n = utf8.DecodeRuneInString(text[i:])
		}
		if i+n > max {
			break
		}
		i += n
	}
	return text[:i]
}
