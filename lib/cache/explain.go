package cache

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Why says why a key missed: which part of it differs from the nearest
// entry, the one that shares its prompt and differs in the fewest parts
// (--cache-explain). "Why did it pay again?" is the first question a rerun
// that pays raises.
type Why struct {
	// Part is "model", "endpoint", "salt", "path", "settings.NAME" (one per
	// setting that differs, comma-separated), "prompt" (no entry has this
	// prompt), "empty" (the cache holds no entry), "removed" (the entry went
	// during the run), Expired or Unreadable; "" without --cache-explain.
	Part   string
	Detail string // the values that differ, for a person
}

// index knows every entry's key, read once at the first miss from the
// entries' headers, and the keys this run stores.
type index struct {
	once     sync.Once
	mu       sync.Mutex
	byPrompt map[string][]Key // path and prompt → keys
	byRest   map[string]int   // model, endpoint, path, settings, salt → entries
	n        int
	loaded   bool
	misses   map[string]int64
}

func promptOf(k Key) string { return k.Path + "\x00" + k.Prompt }

func restOf(k Key) string {
	return strings.Join([]string{k.Model, k.Endpoint, k.Path, string(k.Settings), k.Salt}, "\x00")
}

// add notes an entry stored after the index was loaded (before, load
// reads it).
func (x *index) add(k Key) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.loaded {
		x.put(k)
	}
}

func (x *index) put(k Key) {
	if x.byPrompt == nil {
		x.byPrompt, x.byRest = map[string][]Key{}, map[string]int{}
	}
	x.byPrompt[promptOf(k)] = append(x.byPrompt[promptOf(k)], k)
	x.byRest[restOf(k)]++
	x.n++
}

// load reads the header of every entry. It decodes only the first line of
// each, so it costs a file open and a block per entry.
func (x *index) load(c *Cache) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxEntry))
	if err != nil {
		return
	}
	defer dec.Close()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.loaded = true
	shards, _ := os.ReadDir(c.root)
	for _, sh := range shards {
		files, _ := os.ReadDir(filepath.Join(c.root, sh.Name()))
		for _, f := range files {
			if strings.HasPrefix(f.Name(), tmpPrefix) {
				continue
			}
			if k, ok := readKey(dec, filepath.Join(c.root, sh.Name(), f.Name())); ok {
				x.put(k)
			}
		}
	}
}

func readKey(dec *zstd.Decoder, path string) (Key, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Key{}, false
	}
	defer f.Close()
	if dec.Reset(f) != nil {
		return Key{}, false
	}
	line, err := bufio.NewReader(dec).ReadBytes('\n')
	var h Header
	if err != nil || json.Unmarshal(line, &h) != nil || h.Format != format {
		return Key{}, false
	}
	return h.Key, true
}

// nearest explains a miss of k.
func (x *index) nearest(c *Cache, k Key) Why {
	x.once.Do(func() { x.load(c) })
	x.mu.Lock()
	defer x.mu.Unlock()
	var best []string
	for _, e := range x.byPrompt[promptOf(k)] {
		if d := differences(e, k); best == nil || len(d) < len(best) {
			best = d
		}
	}
	if best != nil && len(best) == 0 {
		return Why{Part: "removed", Detail: "an entry with this key was there when the run started, and was removed since (evicted, or by hand)"}
	}
	if best != nil {
		parts := make([]string, len(best))
		for i, d := range best {
			parts[i], _, _ = strings.Cut(d, ":")
		}
		return Why{Part: strings.Join(parts, ","), Detail: strings.Join(best, "; ")}
	}
	switch n := x.byRest[restOf(k)]; {
	case x.n == 0:
		return Why{Part: "empty", Detail: "the cache holds no entry"}
	case n > 0:
		return Why{Part: "prompt", Detail: fmt.Sprintf("no entry has this prompt; %d have the same model and settings", n)}
	}
	return Why{Part: "prompt", Detail: "no entry has this prompt, nor this model and settings"}
}

// differences lists the parts in which the entry's key e differs from k,
// each as "part: the entry's value → k's".
func differences(e, k Key) []string {
	d := []string{}
	for _, p := range []struct{ name, was, now string }{
		{"model", e.Model, k.Model}, {"endpoint", e.Endpoint, k.Endpoint}, {"salt", e.Salt, k.Salt}, {"path", e.Path, k.Path},
	} {
		if p.was != p.now {
			d = append(d, fmt.Sprintf("%s: %q → %q", p.name, p.was, p.now))
		}
	}
	was, now := e.settings(), k.settings()
	names := slices.Sorted(maps.Keys(was))
	for n := range now {
		if _, ok := was[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		a, inA := was[n]
		b, inB := now[n]
		if a == b && inA == inB {
			continue
		}
		d = append(d, fmt.Sprintf("settings.%s: %s → %s", n, orAbsent(a, inA), orAbsent(b, inB)))
	}
	return d
}

func orAbsent(v string, ok bool) string {
	if !ok {
		return "absent"
	}
	if len(v) > 80 {
		return v[:77] + "..."
	}
	return v
}

// count notes a miss's reason for Stats.MissesBy.
func (x *index) count(w Why) Why {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.misses == nil {
		x.misses = map[string]int64{}
	}
	x.misses[w.Part]++
	return w
}

func (x *index) counts() map[string]int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return maps.Clone(x.misses)
}
