package tokens

import "math/bits"

// rankTable maps the bytes of a token to its rank, for tiktoken encodings
// whose ranks are 0…n-1 (each its token's id). It answers a merge's
// question (is this string a token?) with one hash of the string and
// mostly one probe of a 4 MB table, where a Go map hashes the string again
// and probes a structure several times its size: merging CJK and emoji
// text is such lookups, most of them of strings that are no token.
type rankTable struct {
	// slots hold, per entry, the high 32 bits of the key's hash and rank+1
	// (0: empty); linear probing.
	slots []uint64
	mask  uint64
	// filter is a blocked Bloom filter of the tokens, three bits in one
	// word each: most strings a merge asks about are no token, and the
	// filter, 512 KB, answers those from cache where the slots are a trip
	// to memory.
	filter *[1 << 16]uint64
	// bytes holds the tokens back to back in rank order; the token of rank
	// r is bytes[ends[r-1]:ends[r]] (ends[-1] being 0).
	bytes string
	ends  []uint32
}

// newRankTable returns the table of ranks, or false if they are not 0…n-1.
func newRankTable(ranks map[string]int) (*rankTable, bool) {
	byRank := make([]string, len(ranks))
	size := 0
	for tok, r := range ranks {
		if r < 0 || r >= len(ranks) || byRank[r] != "" || tok == "" {
			return nil, false
		}
		byRank[r] = tok
		size += len(tok)
	}
	t := &rankTable{ends: make([]uint32, len(byRank))}
	b := make([]byte, 0, size)
	for r, tok := range byRank {
		b = append(b, tok...)
		t.ends[r] = uint32(len(b))
	}
	t.bytes = string(b)
	n := 1 << bits.Len(uint(len(ranks))*2) // load ≤ ½
	t.slots = make([]uint64, n)
	t.mask = uint64(n - 1)
	t.filter = new([1 << 16]uint64)
	for r, tok := range byRank {
		h := hashString(tok)
		w, m := filterBits(h)
		t.filter[w] |= m
		i := h & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = h&^0xFFFFFFFF | uint64(r+1)
	}
	return t, true
}

// token is the bytes of the token of rank r.
func (t *rankTable) token(r int) string {
	start := uint32(0)
	if r > 0 {
		start = t.ends[r-1]
	}
	return t.bytes[start:t.ends[r]]
}

// rank is the rank of s, if s is a token.
func (t *rankTable) rank(s string) (int, bool) {
	h := hashString(s)
	if w, m := filterBits(h); t.filter[w]&m != m {
		return 0, false
	}
	tag := h &^ 0xFFFFFFFF
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if e&^0xFFFFFFFF == tag {
			if r := int(uint32(e)) - 1; t.token(r) == s {
				return r, true
			}
		}
	}
}

// filterBits are the word and bits of the filter for hash h (bits the
// slot index does not use).
func filterBits(h uint64) (uint16, uint64) {
	return uint16(h >> 20), 1<<(h>>36&63) | 1<<(h>>42&63) | 1<<(h>>48&63)
}

// hashString is a hash of s eight bytes at a time (wyhash's mixing step).
func hashString(s string) uint64 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	h := uint64(len(s)) * k0
	for len(s) > 8 {
		h = mix(h^(uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56), k1)
		s = s[8:]
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return mix(h^w, k1)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
