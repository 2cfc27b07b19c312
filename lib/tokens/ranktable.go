package tokens

import "math/bits"

// rankTable maps the bytes of a token to its rank, for tiktoken encodings
// whose ranks are 0…n-1 (each its token's id). It answers a merge's
// question (is this string a token?) about a string of up to 8 bytes with
// one probe of a slot that holds the token's bytes and rank, and about a
// longer one with one hash, a filter in cache and, for the strings that
// pass it, mostly one probe, where a Go map hashes the string again and
// probes a structure several times its size: merging is such lookups.
type rankTable struct {
	// tiny holds the tokens of up to 4 bytes, short those of 5 to 8, each
	// with its bytes and rank in the slot, so that a question about a short
	// string (most are) is one trip to memory, or none for tiny's 1 MB when
	// it is in cache; linear probing.
	tiny      []uint64
	tinyMask  uint64
	short     []shortSlot
	shortMask uint64
	// slots hold the longer tokens: per entry, rank+1 (0: empty) in the
	// low tagShift bits and high bits of the key's hash above them; linear
	// probing.
	slots []uint32
	mask  uint64
	// filter is a blocked Bloom filter of the longer tokens, three bits in
	// one word each: the filter, 128 KB, answers from cache where the slots
	// are a trip to memory.
	filter *[1 << 14]uint64
	// shortFilter is the same for the tokens of 3 to 8 bytes, at the hash
	// that places them in tiny or short (256 KB, ~16 bits a token): the
	// merges of text that is no token (random IDs) ask mostly about strings
	// of 3–8 bytes that are none, which it turns away from cache where
	// tiny's 1 MB and short's 4 MB are a trip to memory.
	shortFilter *[1 << 15]uint64
	// words3 holds rank+1 (0: none) of every string of three bytes from
	// a-z and space, at word3: the merges of random letter strings ask
	// mostly about such strings, which it answers with one load from 77 KB
	// rather than a hash, the filter and a probe.
	words3 *[27 * 27 * 27]int32
	// bytes holds the tokens back to back; the token of rank r starts at
	// spans[r]>>8 and is spans[r]&0xFF bytes long.
	bytes string
	spans []uint32
}

// tagShift is the number of bits of a slot that hold rank+1.
const tagShift = 18

// newRankTable returns the table of ranks, or false if they are not 0…n-1
// (n < 1<<tagShift), a token is empty or longer than 255 bytes, or they
// are more than 16 MB.
func newRankTable(ranks map[string]int) (*rankTable, bool) {
	if len(ranks) >= 1<<tagShift {
		return nil, false
	}
	t := &rankTable{
		filter:      new([1 << 14]uint64),
		shortFilter: new([1 << 15]uint64),
		words3:      new([27 * 27 * 27]int32),
		spans:       make([]uint32, len(ranks)),
	}
	b := make([]byte, 0, 8*len(ranks))
	tiny, short, long := 0, 0, 0
	for tok, r := range ranks {
		if r < 0 || r >= len(ranks) || t.spans[r] != 0 || tok == "" || len(tok) > 255 || len(b)+len(tok) >= 1<<24 {
			return nil, false
		}
		t.spans[r] = uint32(len(b))<<8 | uint32(len(tok))
		b = append(b, tok...)
		switch {
		case len(tok) <= 4:
			tiny++
		case len(tok) <= 8:
			short++
		default:
			long++
		}
	}
	t.bytes = string(b)
	nt := 1 << bits.Len(uint(tiny)*2) // load ≤ ½
	ns := 1 << bits.Len(uint(short)*2)
	n := 1 << bits.Len(uint(long)*2)
	t.tiny, t.tinyMask = make([]uint64, nt), uint64(nt-1)
	t.short, t.shortMask = make([]shortSlot, ns), uint64(ns-1)
	t.slots, t.mask = make([]uint32, n), uint64(n-1)
	for r := range len(ranks) {
		tok := t.token(r)
		if len(tok) <= 8 && len(tok) >= 3 {
			w, m := filterBits(shortKeyHash(tok))
			t.shortFilter[w%uint16(len(t.shortFilter))] |= m
		}
		if i, ok := word3(tok); ok {
			t.words3[i] = int32(r + 1)
		}
		if len(tok) <= 4 {
			k := tinyKey(tok)
			i := shortKeyHash(tok) & t.tinyMask
			for t.tiny[i] != 0 {
				i = (i + 1) & t.tinyMask
			}
			t.tiny[i] = uint64(r+1)<<40 | k
			continue
		}
		if len(tok) <= 8 {
			k := loadShort(tok)
			i := shortKeyHash(tok) & t.shortMask
			for t.short[i].rank != 0 {
				i = (i + 1) & t.shortMask
			}
			t.short[i] = shortSlot{key: k, rank: uint32(r + 1), n: uint32(len(tok))}
			continue
		}
		h := hashString(tok)
		w, m := filterBits(h)
		t.filter[w%uint16(len(t.filter))] |= m
		i := h & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = tag(h) | uint32(r+1)
	}
	return t, true
}

// size is the number of tokens.
func (t *rankTable) size() int { return len(t.spans) }

// token is the bytes of the token of rank r.
func (t *rankTable) token(r int) string {
	span := t.spans[r]
	return t.bytes[span>>8 : span>>8+span&0xFF]
}

// rank is the rank of s, if s is a token, for strings that mostly are
// not (the filter turns the long ones away).
func (t *rankTable) rank(s string) (int, bool) {
	if len(s) <= 8 {
		if i, ok := word3(s); ok {
			return t.word3Rank(i)
		}
		if len(s) <= 4 {
			k := tinyKey(s)
			h := shortHash(k)
			if w, m := filterBits(h); len(s) >= 3 && t.shortFilter[w%uint16(len(t.shortFilter))]&m != m {
				return 0, false
			}
			return t.probeTiny(k, h)
		}
		k, n := loadShort(s), uint32(len(s))
		h := shortHash(k ^ uint64(n))
		if w, m := filterBits(h); t.shortFilter[w%uint16(len(t.shortFilter))]&m != m {
			return 0, false
		}
		return t.probeShort(k, n, h)
	}
	h := hashString(s)
	if w, m := filterBits(h); t.filter[w%uint16(len(t.filter))]&m != m {
		return 0, false
	}
	return t.probe(s, h)
}

// lookup is rank, for strings that mostly are tokens (the pieces of prose
// and code), without the filter's trip to memory.
func (t *rankTable) lookup(s string) (int, bool) {
	if i, ok := word3(s); ok {
		return t.word3Rank(i)
	}
	if len(s) <= 4 {
		k := tinyKey(s)
		return t.probeTiny(k, shortHash(k))
	}
	if len(s) <= 8 {
		k, n := loadShort(s), uint32(len(s))
		return t.probeShort(k, n, shortHash(k^uint64(n)))
	}
	return t.probe(s, hashString(s))
}

// probeTiny looks in tiny for the string of up to 4 bytes whose tinyKey is
// k, at its hash h.
func (t *rankTable) probeTiny(k, h uint64) (int, bool) {
	for i := h & t.tinyMask; ; i = (i + 1) & t.tinyMask {
		e := t.tiny[i]
		if e == 0 {
			return 0, false
		}
		if e&(1<<40-1) == k {
			return int(e>>40) - 1, true
		}
	}
}

// probeShort looks in short for the string of n (5 to 8) bytes whose
// loadShort is k, at its hash h.
func (t *rankTable) probeShort(k uint64, n uint32, h uint64) (int, bool) {
	for i := h & t.shortMask; ; i = (i + 1) & t.shortMask {
		e := &t.short[i]
		if e.rank == 0 {
			return 0, false
		}
		if e.key == k && e.n == n {
			return int(e.rank) - 1, true
		}
	}
}

// probe looks for s, of more than 8 bytes, whose hash is h, in the slots.
func (t *rankTable) probe(s string, h uint64) (int, bool) {
	tg := tag(h)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if e&^(1<<tagShift-1) == tg {
			if r := int(e&(1<<tagShift-1)) - 1; t.token(r) == s {
				return r, true
			}
		}
	}
}

// word3Rank is the rank of the string words3 keeps at i, if it is a token.
func (t *rankTable) word3Rank(i int) (int, bool) {
	if r := t.words3[i]; r != 0 {
		return int(r) - 1, true
	}
	return 0, false
}

// word3 is where words3 keeps s, if s is three bytes from a-z and space.
func word3(s string) (int, bool) {
	if len(s) != 3 {
		return 0, false
	}
	a, b, c := letter27[s[0]], letter27[s[1]], letter27[s[2]]
	if a|b|c < 0 {
		return 0, false
	}
	return int(a)*27*27 + int(b)*27 + int(c), true
}

// letter27 numbers the bytes a-z and space 0–26, the others -1.
var letter27 = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = int8(c - 'a')
	}
	t[' '] = 26
	return t
}()

// shortKeyHash is the hash at which probeShort looks for s (1 to 8 bytes).
func shortKeyHash(s string) uint64 {
	if len(s) <= 4 {
		return shortHash(tinyKey(s))
	}
	return shortHash(loadShort(s) ^ uint64(len(s)))
}

// shortSlot is a token of up to 8 bytes: its bytes (loadShort), length
// and rank+1 (0: empty).
type shortSlot struct {
	key     uint64
	rank, n uint32
}

// tinyKey is s (up to 4 bytes) as a little-endian word, its length above.
func tinyKey(s string) uint64 { return uint64(len(s))<<32 | loadShort(s) }

// shortHash is a hash of k whose low bits are good for a table index
// (every bit of k moves them: murmur3's finalizer).
func shortHash(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	return k ^ k>>33
}

// loadShort is s (up to 8 bytes) as a little-endian word.
func loadShort(s string) uint64 {
	switch n := len(s); {
	case n == 8:
		return load64(s)
	case n >= 4:
		return uint64(load32(s)) | uint64(load32(s[n-4:]))<<(8*(n-4))
	case n > 0:
		return uint64(s[0]) | uint64(s[n>>1])<<(8*(n>>1)) | uint64(s[n-1])<<(8*(n-1))
	}
	return 0
}

// tag is the bits of hash h that a slot keeps (bits neither the slot index
// nor the filter use).
func tag(h uint64) uint32 { return uint32(h>>(64-32+tagShift)) << tagShift }

// filterBits are the word and bits of the filter for hash h (bits the
// slot index does not use).
func filterBits(h uint64) (uint16, uint64) {
	return uint16(h >> 20), 1<<(h>>36&63) | 1<<(h>>42&63) | 1<<(h>>48&63)
}

// hashString is a hash of s after wyhash: the bytes of short strings read
// as two words (overlapping), longer ones sixteen bytes at a time.
func hashString(s string) uint64 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(s)
	seed := uint64(n) ^ k0
	var a, b uint64
	switch {
	case n > 16:
		for i := 0; i+16 < n; i += 16 {
			seed = mix(load64(s[i:])^k1, load64(s[i+8:])^seed)
		}
		a, b = load64(s[n-16:]), load64(s[n-8:])
	case n >= 8:
		a, b = load64(s), load64(s[n-8:])
	case n >= 4:
		a, b = uint64(load32(s)), uint64(load32(s[n-4:]))
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(a^k1, b^seed)
}

func load64(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load32(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
