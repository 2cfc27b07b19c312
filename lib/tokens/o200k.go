package tokens

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pretok"
	"github.com/ifkit/ifkit/lib/ucd"
)

// o200k encodes like OpenAI's tiktoken (Rust) for o200k_base: piece below
// is its pattern written out by hand, with the character classes of the
// Unicode version tiktoken's regex engine uses (16.0, pretok.Unicode) and
// its case folding; the byte-pair merge is tiktoken's, on the same rank
// map. (tiktoken-go, the Go port, pre-tokenizes with regexp2, a
// backtracking engine that runs at ~5 MB/s with Go's Unicode 15.0 tables
// and ASCII-only case folding.)
type o200k struct {
	ranks *rankTable
	// pairs holds the ranks of the two-byte tokens (math.MaxInt32: none):
	// every merge starts by looking up each pair of adjacent bytes, and this
	// 256 KB table answers those from cache.
	pairs *[1 << 16]int32
	// singles holds the ranks of the one-byte tokens (there is one for
	// every byte), numbers those of the three-digit numbers (each is a
	// token): newO200k checks.
	singles [256]int32
	numbers [1000]int32
	// classes are the runeClasses of the Basic Multilingual Plane and of
	// plane 1 (emoji, historic scripts); rarer runes are classified as they
	// come.
	classes *[classTable]runeClass
	// The cuts of a long piece (merge) ask whether a token may span the
	// boundary between two characters (spanned), of bitmaps at a hash of
	// what such a token holds (a bit may stand for other strings too, which
	// only loses a cut): bigrams has one for every two characters, not both
	// ASCII, one after the other in a token (128 KB); heads, tails and mids
	// (32 KB each) one for every token that starts inside a character
	// (with continuation bytes), up to the whole character after them; that
	// ends inside one, from the whole character before; that does both.
	// gate says, for the two bytes around a boundary, which of the last three
	// can hold (64 KB); wholeRunes has a bit for every rune of classes
	// whose bytes are a token (16 KB).
	gate       *[1 << 16]uint8
	bigrams    *[1 << 14]uint64
	heads      *[1 << 12]uint64
	tails      *[1 << 12]uint64
	mids       *[1 << 12]uint64
	wholeRunes *[classTable / 64]uint64
	// mergers holds *merger, each with its memo of segments, kept from one
	// call to the next: a count runs once per chunk of 4 KB, and a memo
	// that started empty in each was missing more than it answered.
	mergers sync.Pool
}

// rank is the rank of s, if s is a token.
func (o *o200k) rank(s string) (int, bool) { return o.ranks.rank(s) }

// newO200k returns the encoder of ranks, which must be 0…n-1 (they are
// o200k_base's token ids).
func newO200k(ranks map[string]int) (*o200k, error) {
	t, ok := newRankTable(ranks)
	if !ok {
		return nil, errors.New("ranks are not 0…n-1, or a token is not 1–255 bytes long")
	}
	o := &o200k{
		ranks:      t,
		pairs:      new([1 << 16]int32),
		classes:    new([classTable]runeClass),
		gate:       new([1 << 16]uint8),
		bigrams:    new([1 << 14]uint64),
		heads:      new([1 << 12]uint64),
		tails:      new([1 << 12]uint64),
		mids:       new([1 << 12]uint64),
		wholeRunes: new([classTable / 64]uint64),
	}
	o.mergers.New = func() any { return new(merger) }
	for r := range o.classes {
		o.classes[r] = classify(rune(r))
	}
	for i := range o.pairs {
		o.pairs[i] = math.MaxInt32
	}
	for i := range o.singles {
		r, ok := t.lookup(string([]byte{byte(i)}))
		if !ok {
			return nil, errors.New("a byte is not a token")
		}
		o.singles[i] = int32(r)
	}
	for i := range o.numbers {
		r, ok := t.lookup(strconv.Itoa(1000 + i)[1:])
		if !ok {
			return nil, errors.New("a three-digit number is not a token")
		}
		o.numbers[i] = int32(r)
	}
	for r := range t.size() {
		tok := t.token(r)
		if len(tok) == 2 {
			o.pairs[int(tok[0])<<8|int(tok[1])] = int32(r)
		}
		o.addSpans(tok)
	}
	return o, nil
}

// addSpans adds what tok holds to the sets that spanned asks.
func (o *o200k) addSpans(tok string) {
	if c, n := utf8.DecodeRuneInString(tok); n == len(tok) && c < classTable && (c != utf8.RuneError || n > 1) {
		o.wholeRunes[c>>6] |= 1 << (c & 63)
	}
	// A token that starts inside a character (with continuation bytes),
	// and the character after them or, if it ends inside that one, all of it.
	lead := 0
	for lead < len(tok) && lead < 4 && isContinuation(tok[lead]) {
		lead++
	}
	if lead > 0 && lead < 4 && lead < len(tok) {
		o.gate[int(tok[lead-1])<<8|int(tok[lead])] |= startsInside
		if n := charLen(tok[lead:]); n > 0 {
			setBit(o.heads[:], spanKey(tok[:lead+n]))
		} else if incomplete(tok[lead:]) {
			setBit(o.mids[:], spanKey(tok))
		}
	}
	// A token that ends inside a character, from the whole character before.
	for j := 1; j <= 3 && j < len(tok); j++ {
		u := tok[len(tok)-j:]
		if !isContinuation(u[0]) {
			if incomplete(u) {
				o.gate[int(tok[len(tok)-j-1])<<8|int(u[0])] |= endsInside
				for c := 1; c <= 4 && c <= len(tok)-j; c++ {
					if charLen(tok[len(tok)-j-c:]) == c {
						setBit(o.tails[:], spanKey(tok[len(tok)-j-c:]))
					}
				}
			}
			break
		}
	}
	// Every two valid characters one after the other.
	for p := 0; p+1 < len(tok); {
		if tok[p]|tok[p+1] < utf8.RuneSelf || isContinuation(tok[p]) {
			p++
			continue
		}
		c1, n1 := utf8.DecodeRuneInString(tok[p:])
		if c1 == utf8.RuneError && n1 == 1 {
			p++
			continue
		}
		c2, n2 := utf8.DecodeRuneInString(tok[p+n1:])
		if n2 > 0 && (c2 != utf8.RuneError || n2 > 1) && c1|c2 >= utf8.RuneSelf {
			setBit(o.bigrams[:], bigramKey(c1, c2))
		}
		p++
	}
}

// The bits of gate, for two bytes x, y: a token starts with continuation
// bytes ending in x followed by y (startsInside), or holds x followed by
// the lead byte y of a character it ends inside (endsInside).
const (
	startsInside = 1 << iota
	endsInside
)

func isContinuation(b byte) bool { return b&0xC0 == 0x80 }

// seqLen is the length of the UTF-8 sequence that lead byte b starts.
func seqLen(b byte) int {
	switch {
	case b >= 0xF0:
		return 4
	case b >= 0xE0:
		return 3
	case b >= 0xC0:
		return 2
	}
	return 1
}

func setBit(bits []uint64, x uint32) { bits[x>>6&uint32(len(bits)-1)] |= 1 << (x & 63) }

func hasBit(bits []uint64, x uint32) bool { return bits[x>>6&uint32(len(bits)-1)]&(1<<(x&63)) != 0 }

// charLen is the length of the valid character s starts with, or 0.
func charLen(s string) int {
	if r, n := utf8.DecodeRuneInString(s); r != utf8.RuneError || n > 1 {
		return n
	}
	return 0
}

// incomplete says whether s is the start of a character: a lead byte and
// fewer continuation bytes than it calls for.
func incomplete(s string) bool {
	if s[0] < 0xC0 || seqLen(s[0]) <= len(s) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isContinuation(s[i]) {
			return false
		}
	}
	return true
}

// spanKey is a hash of s, 2 to 7 bytes.
func spanKey(s string) uint32 {
	x := uint64(len(s)) << 56
	for i := range len(s) {
		x |= uint64(s[i]) << (8 * i)
	}
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return uint32(x >> 32)
}

// bigramKey is a hash of two runes.
func bigramKey(a, b rune) uint32 {
	return uint32((uint64(a)<<21 | uint64(b)) * 0x9E3779B97F4A7C15 >> 32)
}

// spanned says whether a token may span position k of piece, between the
// valid characters a (piece[i:k]) and b (piece[k:j]), not both ASCII:
// whether it holds what such a token must (spans makes no false
// negatives). A token that spans k either holds both characters whole,
// or starts inside a (then it starts with a's continuation bytes after i
// and the byte at k), or ends inside b (then it ends with the byte before
// k and b's bytes up to where it ends).
func (o *o200k) spanned(piece string, i, k, j int, a, b rune) bool {
	if hasBit(o.bigrams[:], bigramKey(a, b)) {
		return true
	}
	g := o.gate[int(piece[k-1])<<8|int(piece[k])]
	if g == 0 {
		return false
	}
	if g&endsInside != 0 {
		for e := k + 1; e < j; e++ {
			if hasBit(o.tails[:], spanKey(piece[i:e])) {
				return true
			}
		}
	}
	if g&startsInside != 0 {
		for s := i + 1; s < k; s++ {
			if hasBit(o.heads[:], spanKey(piece[s:j])) {
				return true
			}
			if g&endsInside == 0 {
				continue
			}
			for e := k + 1; e < j; e++ {
				if hasBit(o.mids[:], spanKey(piece[s:e])) {
					return true
				}
			}
		}
	}
	return false
}

// encode appends the ids of s to out; they are tiktoken-go's
// Encode(s, nil, nil) (special-token text is ordinary text).
func (o *o200k) encode(s string, out []int) []int {
	o.run(validText(s), &out)
	return out
}

// countText is count for a text that is mostly valid UTF-8: run checks it
// as it goes, mostly where it decodes the characters anyway, so a valid
// text is read once rather than checked first (utf8.ValidString took 12 %
// of the count of emoji text); only an invalid one is replaced (validText)
// and counted again.
func (o *o200k) countText(s string) int {
	if n, ok := o.run(s, nil); ok {
		return n
	}
	n, _ := o.run(validText(s), nil)
	return n
}

// count is len(encode(s, nil)) without building the ids. (A cache of the
// merged pieces' counts cost more than the merges it saved: random IDs
// 16.5 → 21 ms per 455 KB, nothing gained on CJK or emoji; merging here is
// cheap next to a tokenizer.json's, which keeps its word cache.)
func (o *o200k) count(s string) int {
	n, _ := o.run(validText(s), nil)
	return n
}

// run returns the number of tokens of s and appends their ids to *ids
// unless ids is nil, if s is valid UTF-8 (validText); else it returns
// false, and the count and ids are of nothing.
func (o *o200k) run(s string, ids *[]int) (int, bool) {
	m := o.mergers.Get().(*merger)
	defer o.putMerger(m)
	parts := m.parts
	m.invalid = false
	valid := true
	n := 0
	k := &pieceKinds
	for p := 0; p < len(s); {
		// A piece of one to three bytes, as the kinds of the three at p
		// say (most pieces of hexadecimal IDs), is taken without a call,
		// one of one byte counted here.
		e, check := 0, false
		if p+2 < len(s) {
			l := shortPieces[int(k[s[p]])<<6|int(k[s[p+1]])<<3|int(k[s[p+2]])]
			if l-1 < 3 && ids == nil {
				// Counting, a piece shortPieces decides is counted without
				// a branch on its length, which random IDs mispredict: it
				// is a token, but a pair that is none is two (bit 30 is set
				// in none, math.MaxInt32, and in no rank, which are below
				// 1<<tagShift).
				pair := uint32(o.pairs[int(s[p])<<8|int(s[p+1])])
				n += 1 + int(l>>1&^l&1)&int(pair>>30)
				p += int(l)
				continue
			}
			switch l {
			case 1:
				n++
				if ids != nil {
					*ids = append(*ids, int(o.singles[s[p]]))
				}
				p++
				continue
			case 2, 3:
				e = p + int(l)
			case wordAfter:
				e = asciiWord(s, p+1)
			case wordAt:
				e = asciiWord(s, p)
			case nonASCII: // e = 0: runePiece, below
			default:
				e = asciiPiece(s, p)
			}
		} else {
			e = asciiPiece(s, p)
		}
		// A piece that may hold bytes from 0x80 is checked, below or by
		// merge as it decodes its characters.
		if check = e == 0; check {
			e = o.runePiece(s, p)
		}
		piece := s[p:e]
		p = e
		// Most pieces of IDs and code are one or two bytes, which the
		// tables answer from cache.
		id := -1
		switch len(piece) {
		case 1:
			id = int(o.singles[piece[0]])
		case 2:
			if r := o.pairs[int(piece[0])<<8|int(piece[1])]; r != math.MaxInt32 {
				id = int(r)
			} else {
				parts = append(parts[:0], bpePart{0, math.MaxInt}, bpePart{1, math.MaxInt}, bpePart{2, math.MaxInt})
			}
		case 3:
			if d := digits3(piece); d >= 0 {
				id = int(o.numbers[d])
			} else if r, ok := o.ranks.lookup(piece); ok {
				id = r
			} else {
				parts = o.merge3(piece, parts[:0])
			}
		default:
			// Through the filters: the pieces of random IDs that are no
			// token are turned away from cache (IDs 7.2 → 6.4 ms per 455
			// KB), at the price of a look at them for the pieces that are
			// (prose 2.05 → 2.2).
			if r, ok := o.ranks.rank(piece); ok {
				id = r
			} else if !check {
				// ASCII, where merge would find no cut.
				parts = o.bytePairMerge(piece, parts[:0], m)
			} else {
				parts = o.merge(piece, parts[:0], m)
				check = false
			}
		}
		if check {
			valid = valid && utf8.ValidString(piece)
		}
		if id >= 0 {
			n++
			if ids != nil {
				*ids = append(*ids, id)
			}
			continue
		}
		n += len(parts) - 1
		if ids != nil {
			for i := 0; i+1 < len(parts); i++ {
				r, _ := o.ranks.lookup(piece[parts[i].start:parts[i+1].start])
				*ids = append(*ids, r)
			}
		}
	}
	m.parts = parts[:0]
	return n, valid && !m.invalid
}

// digits3 is the number s spells if it is three ASCII digits, else -1.
func digits3(s string) int {
	a, b, c := s[0]-'0', s[1]-'0', s[2]-'0'
	if a > 9 || b > 9 || c > 9 {
		return -1
	}
	return int(a)*100 + int(b)*10 + int(c)
}

// merge3 is bytePairMerge of a piece of three bytes that is no token: the
// pair of lower rank merges, if either is a token, and nothing after it.
func (o *o200k) merge3(piece string, parts []bpePart) []bpePart {
	l := o.pairs[int(piece[0])<<8|int(piece[1])]
	r := o.pairs[int(piece[1])<<8|int(piece[2])]
	cut := 1
	switch {
	case l == math.MaxInt32 && r == math.MaxInt32:
		parts = append(parts, bpePart{0, math.MaxInt}, bpePart{1, math.MaxInt})
		cut = 2
	case l <= r:
		parts = append(parts, bpePart{0, math.MaxInt})
		cut = 2
	default:
		parts = append(parts, bpePart{0, math.MaxInt})
	}
	return append(parts, bpePart{cut, math.MaxInt}, bpePart{3, math.MaxInt})
}

// bpePart is where a part of a piece starts and the rank of the merge of it
// with the next part (math.MaxInt: none).
type bpePart struct {
	start, rank int
}

// merge is bytePairMerge(piece), in segments where no token spans the cut
// between two characters (spanned): most such cuts in CJK and emoji text
// leave segments of one character, or of a few that are one token, so a
// long piece costs a few bit tests per character rather than a heap of
// merges. Only the cuts next to a non-ASCII character are looked for, as
// ASCII text has almost none; none is made next to a byte that is not
// valid UTF-8 (pieces are valid; tests merge any bytes).
func (o *o200k) merge(piece string, parts []bpePart, m *merger) []bpePart {
	start, chars := 0, 0
	i, a := -1, rune(0) // the valid character before k and where it starts (-1: none)
	for k := 0; k < len(piece); {
		if piece[k] < utf8.RuneSelf && a < utf8.RuneSelf {
			i, a = k, rune(piece[k])
			k++
			chars++
			continue
		}
		b, n := charAt(piece, k)
		if b == utf8.RuneError && n == 1 {
			m.invalid = true
			i = -1
			k++
			chars++
			continue
		}
		if i >= 0 && !o.spanned(piece, i, k, k+n, a, b) {
			parts = o.mergeSegment(piece, start, k, chars, a, parts, m)
			start, chars = k, 0
		}
		i, a = k, b
		k += n
		chars++
	}
	if start == 0 {
		return o.bytePairMerge(piece, parts, m)
	}
	parts = o.mergeSegment(piece, start, len(piece), chars, a, parts, m)
	return append(parts, bpePart{len(piece), math.MaxInt})
}

// mergeSegment appends the parts of piece[start:end], of chars characters
// ending with last, but the final one. A segment that is a token is one
// (every o200k_base token merges from its bytes to itself:
// TestO200kTokensMergeToThemselves), as is a character of wholeRunes.
func (o *o200k) mergeSegment(piece string, start, end, chars int, last rune, parts []bpePart, m *merger) []bpePart {
	if chars == 1 && last < classTable && o.wholeRunes[last>>6]&(1<<(last&63)) != 0 {
		return append(parts, bpePart{start, math.MaxInt})
	}
	seg := piece[start:end]
	if len(seg) >= 64 {
		if _, ok := o.rank(seg); ok {
			return append(parts, bpePart{start, math.MaxInt})
		}
		m.seg = o.bytePairMerge(seg, m.seg[:0], m)
		for _, p := range m.seg[:len(m.seg)-1] {
			parts = append(parts, bpePart{start + p.start, math.MaxInt})
		}
		return parts
	}
	memo := &m.memo[memoSlot(seg)]
	if int(memo.n) != len(seg) || string(memo.seg[:len(seg)]) != seg {
		cuts := uint64(1)
		if _, ok := o.rank(seg); !ok {
			m.seg = o.bytePairMerge(seg, m.seg[:0], m)
			for _, p := range m.seg[1 : len(m.seg)-1] {
				cuts |= 1 << p.start
			}
		}
		memo.n, memo.cuts = uint8(len(seg)), cuts
		copy(memo.seg[:], seg)
	}
	for c := memo.cuts; c != 0; c &= c - 1 {
		parts = append(parts, bpePart{start + bits.TrailingZeros64(c), math.MaxInt})
	}
	return parts
}

// bytePairMerge is tiktoken-go's bytePairMerge, reusing parts: merge the
// adjacent pair with the lowest rank (the leftmost of equal ones) until no
// pair is in the vocabulary. The parts left, with a final one at
// len(piece), bound the tokens.
func (o *o200k) bytePairMerge(piece string, parts []bpePart, m *merger) []bpePart {
	if len(piece) > longPiece {
		return o.mergeLong(piece, parts, m)
	}
	return o.mergeScan(piece, parts)
}

// mergeScan is tiktoken-go's loop: find the lowest rank by scanning all
// parts, for each merge.
func (o *o200k) mergeScan(piece string, parts []bpePart) []bpePart {
	for i := 0; i <= len(piece); i++ {
		parts = append(parts, bpePart{i, math.MaxInt})
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := o.rank(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i+1 < len(piece); i++ {
		if r := o.pairs[int(piece[i])<<8|int(piece[i+1])]; r != math.MaxInt32 {
			parts[i].rank = int(r)
		}
	}
	for len(parts) > 1 {
		min, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < min {
				min, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return parts
}

// longPiece is about the length above which mergeLong's heap beats the
// quadratic scan (a 4 KB run of spaces or of letters takes ~25 ms by
// scanning, <1 ms with the heap).
const longPiece = 24

// merger is mergeLong's memory, reused from piece to piece.
type merger struct {
	// Parts are named by their first byte; next and prev link them, rank
	// is the rank of a part's merge with the next one.
	next, prev, rank []int32
	gone             []bool
	heap             mergeHeap
	// seg holds the parts of a segment (merge), parts those of a piece
	// (run): kept, as a count runs once per chunk of 4 KB.
	seg, parts []bpePart
	// invalid is set by merge when a piece it merged is not valid UTF-8.
	invalid bool
	// memo remembers the parts of recent segments, at a hash of their end:
	// the segments left to merge in CJK and emoji text are few (a rare
	// character, a skin tone after a hand), and they repeat.
	memo [1 << memoBits]segMemo
}

// segMemo is a segment of fewer than 64 bytes (n of seg; 0: none) and
// where its parts start (a bit for each). It holds a copy of the bytes: a
// merger outlives the text it merged.
type segMemo struct {
	cuts uint64
	n    uint8
	seg  [63]byte
}

const memoBits = 7

// memoSlot is where merger.memo keeps seg (1 to 63 bytes): a hash of its
// last eight bytes, or fewer, and its length.
func memoSlot(seg string) int {
	return int((loadShort(seg[len(seg)-min(len(seg), 8):]) ^ uint64(len(seg))) * 0x9E3779B97F4A7C15 >> (64 - memoBits))
}

// putMerger returns m to the pool, without the tables of a long piece.
func (o *o200k) putMerger(m *merger) {
	if cap(m.rank) > 1<<16 {
		m.next, m.prev, m.rank, m.gone, m.heap = nil, nil, nil, nil, nil
	}
	if cap(m.parts) > 1<<16 {
		m.parts = nil
	}
	o.mergers.Put(m)
}

// grow readies m for a piece of n bytes.
func (m *merger) grow(n int) {
	if cap(m.rank) < n {
		m.next = make([]int32, n+1, 2*n+1)
		m.prev = make([]int32, n+1, 2*n+1)
		m.rank = make([]int32, n, 2*n)
		m.gone = make([]bool, n, 2*n)
	}
	m.next, m.prev, m.rank, m.gone = m.next[:n+1], m.prev[:n+1], m.rank[:n], m.gone[:n]
	clear(m.gone)
	m.heap = m.heap[:0]
}

// mergeLong is bytePairMerge in O(n log n): the candidate merges wait in a
// heap ordered by rank, then position, which is the scan's choice; an entry
// whose part has since been merged away or re-ranked is skipped. A part's
// rank only ever names a longer string, so a stale entry never matches the
// current rank by chance.
func (o *o200k) mergeLong(piece string, parts []bpePart, m *merger) []bpePart {
	const none = math.MaxInt32
	n := len(piece)
	m.grow(n)
	next, prev, rank, gone := m.next, m.prev, m.rank, m.gone
	h := m.heap
	joined := func(i int32) int32 {
		j := next[i]
		if int(j) >= n {
			return none
		}
		if r, ok := o.rank(piece[i:next[j]]); ok {
			return int32(r)
		}
		return none
	}
	for i := range n + 1 {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	for i := range n {
		rank[i] = none
		if i+1 < n {
			rank[i] = o.pairs[int(piece[i])<<8|int(piece[i+1])]
		}
		if rank[i] != none {
			h = append(h, uint64(rank[i])<<32|uint64(i))
		}
	}
	h.init()
	for len(h) > 0 {
		e := h.pop()
		r, i := int32(e>>32), int32(e)
		if gone[i] || rank[i] != r {
			continue
		}
		j := next[i]
		gone[j] = true
		next[i] = next[j]
		prev[next[j]] = i
		if rank[i] = joined(i); rank[i] != none {
			h.push(uint64(rank[i])<<32 | uint64(i))
		}
		if p := prev[i]; p >= 0 {
			if rank[p] = joined(p); rank[p] != none {
				h.push(uint64(rank[p])<<32 | uint64(p))
			}
		}
	}
	m.heap = h
	for i := int32(0); ; i = next[i] {
		parts = append(parts, bpePart{int(i), none})
		if int(i) == n {
			return parts
		}
	}
}

// mergeHeap is a binary min-heap of rank<<32 | position.
type mergeHeap []uint64

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *mergeHeap) pop() uint64 {
	s := *h
	x := s[0]
	s[0] = s[len(s)-1]
	*h = s[:len(s)-1]
	h.down(0)
	return x
}

func (h mergeHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// classTable is the number of runes whose class is in a table.
const classTable = 2 << 16

// runeClass is what the o200k pattern asks of a rune: \s is White_Space,
// \p{..} the general categories of pretok.Unicode.
type runeClass uint8

const (
	cLetter  runeClass = 1 << iota // \p{L}
	cNumber                        // \p{N}
	cSpace                         // \s
	cUpper                         // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower                         // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cNewline                       // [\r\n]
)

// notLetterOrNumber is [^\r\n\p{L}\p{N}], the optional character before a word.
func (c runeClass) notLetterOrNumber() bool { return c&(cLetter|cNumber|cNewline) == 0 }

// other is [^\s\p{L}\p{N}]: punctuation, symbols, marks, controls.
func (c runeClass) other() bool { return c&(cSpace|cLetter|cNumber) == 0 }

func classify(r rune) runeClass {
	var c runeClass
	switch cat := pretok.Unicode.Category(r); {
	case cat == ucd.Lu || cat == ucd.Lt:
		c = cLetter | cUpper
	case cat == ucd.Ll:
		c = cLetter | cLower
	case cat == ucd.Lm || cat == ucd.Lo:
		c = cLetter | cUpper | cLower
	case ucd.M.Has(cat):
		c = cUpper | cLower
	case ucd.N.Has(cat):
		c = cNumber
	}
	if ucd.IsWhiteSpace(r) {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cNewline
	}
	return c
}

// charAt is utf8.DecodeRuneInString(s[k:]) for a non-ASCII byte at k,
// with the three- and four-byte characters of CJK and emoji decoded here
// (the library's decoder is not inlined).
func charAt(s string, k int) (rune, int) {
	switch b := s[k]; {
	case b >= 0xE0 && b < 0xF0 && k+2 < len(s):
		c1, c2 := s[k+1], s[k+2]
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
			r := rune(b&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
			if r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
				return r, 3
			}
		}
	case b >= 0xF0 && b < 0xF5 && k+3 < len(s):
		c1, c2, c3 := s[k+1], s[k+2], s[k+3]
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && c3&0xC0 == 0x80 {
			r := rune(b&0x07)<<18 | rune(c1&0x3F)<<12 | rune(c2&0x3F)<<6 | rune(c3&0x3F)
			if r >= 0x10000 && r <= utf8.MaxRune {
				return r, 4
			}
		}
	}
	return utf8.DecodeRuneInString(s[k:])
}

// classAt is the class and size of the rune at s[i:] (valid UTF-8), or
// 0, 0 at the end of s.
func classAt(t *[classTable]runeClass, s string, i int) (runeClass, int) {
	if i < len(s) && s[i] < utf8.RuneSelf {
		return t[s[i]], 1
	}
	return classAtMultibyte(t, s, i)
}

func classAtMultibyte(t *[classTable]runeClass, s string, i int) (runeClass, int) {
	if i >= len(s) {
		return 0, 0
	}
	// s is valid: a lead byte is followed by its continuation bytes, and
	// what they spell is a character, so it is decoded here without the
	// checks of charAt, which is not inlined (CJK, emoji).
	switch b := s[i]; {
	case b >= 0xF0 && i+3 < len(s):
		r := rune(b&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
		if r < classTable {
			return t[r], 4
		}
		return classify(r), 4
	case b >= 0xE0 && i+2 < len(s):
		return t[rune(b&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F)], 3
	case b >= 0xC0 && i+1 < len(s):
		return t[rune(b&0x1F)<<6|rune(s[i+1]&0x3F)], 2
	}
	r, n := charAt(s, i)
	if r < classTable {
		return t[r], n
	}
	return classify(r), n
}

// piece returns the end of the piece that starts at s[p] (p < len(s),
// s valid UTF-8): the match regexp2 finds there for
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// trying the alternatives in order and, within one, the backtracking
// engine's choices (greedy first). Every rune starts some alternative, so
// the pieces cover the text.
func (o *o200k) piece(s string, p int) int {
	if e := asciiPiece(s, p); e > 0 {
		return e
	}
	return o.runePiece(s, p)
}

// runePiece is piece, rune by rune: where asciiPiece cannot tell. On
// invalid UTF-8 it returns some end after p.
func (o *o200k) runePiece(s string, p int) int {
	t := o.classes
	c, n := classAt(t, s, p)
	// Alternatives 1 and 2, each first with the optional leading character
	// taken, then without it.
	lead := c.notLetterOrNumber()
	if lead {
		if e := wordLowerEnd(t, s, p+n); e > 0 {
			return e
		}
	}
	if e := wordLowerEnd(t, s, p); e > 0 {
		return e
	}
	if lead {
		if e := wordUpperEnd(t, s, p+n); e > 0 {
			return e
		}
	}
	if e := wordUpperEnd(t, s, p); e > 0 {
		return e
	}
	if c&cNumber != 0 {
		e := p + n
		for k := 1; k < 3; k++ {
			c, n := classAt(t, s, e)
			if c&cNumber == 0 {
				break
			}
			e += n
		}
		return e
	}
	q := p
	if s[p] == ' ' {
		q++
	}
	if c, n := classAt(t, s, q); n > 0 && c.other() {
		e := runEnd(t, s, q+n, cSpace|cLetter|cNumber, 0)
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
			e++
		}
		return e
	}
	// A run of whitespace: up to its last line break (\s*[\r\n]+ backtracks
	// to it), else all of it at the end of the text or before more
	// whitespace, else all but its last rune (\s+(?!\S) backtracks one rune
	// so that a following word or punctuation takes it), else the one rune.
	e, last, newline := p+n, p, -1
	if c&cNewline != 0 {
		newline = e
	}
	for {
		c, n := classAt(t, s, e)
		if c&cSpace == 0 {
			break
		}
		last = e
		e += n
		if c&cNewline != 0 {
			newline = e
		}
	}
	return spaceEnd(len(s), p, e, last, newline)
}

// spaceEnd is where piece ends a run of whitespace from p to e, whose last
// rune starts at last, its last line break ending at newline (-1: none),
// in a text of n bytes.
func spaceEnd(n, p, e, last, newline int) int {
	switch {
	case newline > 0:
		return newline
	case e == n || last == p:
		return e
	}
	return last
}

// The kinds of byte that asciiPiece tells apart.
const (
	kOther    uint8 = iota // [^\s\p{L}\p{N}]
	kUpper                 // A-Z
	kLower                 // a-z
	kDigit                 // 0-9
	kSpace                 // \s but \r and \n
	kNewline               // \r, \n
	kNonASCII              // a byte from 0x80
)

var asciiKinds = func() (k [256]uint8) {
	for b := range 256 {
		switch c := classify(rune(b)); {
		case b >= utf8.RuneSelf:
			k[b] = kNonASCII
		case c&cNewline != 0:
			k[b] = kNewline
		case c&cSpace != 0:
			k[b] = kSpace
		case c&cUpper != 0:
			k[b] = kUpper
		case c&cLower != 0:
			k[b] = kLower
		case c&cNumber != 0:
			k[b] = kDigit
		}
	}
	return k
}()

// The kinds of byte that shortPieces tells apart: those of asciiKinds, but
// an apostrophe (a contraction), a slash (it follows punctuation in a
// piece) and whitespace other than space and line breaks (which only a
// space leads in punctuation) are pUnsure; the bytes from 0x80 pNonASCII.
const (
	pOther   uint8 = iota // [^\s\p{L}\p{N}] but ' and /
	pUpper                // A-Z
	pLower                // a-z
	pDigit                // 0-9
	pSpace                // ' '
	pNewline              // \r, \n
	pUnsure
	pNonASCII
)

var pieceKinds = func() (k [256]uint8) {
	for b := range 256 {
		switch a := asciiKinds[b]; {
		case a == kNonASCII:
			k[b] = pNonASCII
		case b == '\'' || b == '/' || a == kSpace && b != ' ':
			k[b] = pUnsure
		default:
			k[b] = map[uint8]uint8{kOther: pOther, kUpper: pUpper, kLower: pLower, kDigit: pDigit, kSpace: pSpace, kNewline: pNewline}[a]
		}
	}
	return k
}()

// shortPieces is, for the pieceKinds x, y, z of three bytes (x<<6 | y<<3 |
// z), the length of the piece at the first where these kinds decide it,
// whatever follows, else wordAt or wordAfter where it is the word
// asciiWord finds there or after a leading character (most pieces of
// prose, without asciiPiece's branches), else nonASCII for a byte from
// 0x80, else 0: half the pieces of random IDs are one byte, many two, and
// this one lookup answers them where asciiPiece branches on each byte
// (TestO200kShortPieces checks every entry against piece).
var shortPieces = func() (t [512]uint8) {
	letter := []uint8{pUpper, pLower}
	// What ends a word, a number, a run of punctuation (and any line
	// breaks after it), and does not make a word of a letter before it.
	endsWord := []uint8{pDigit, pSpace, pNewline, pOther}
	endsUpperWord := append(endsWord, pUpper)
	set := func(n uint8, xs, ys, zs []uint8) {
		for _, x := range xs {
			for _, y := range ys {
				for _, z := range zs {
					t[int(x)<<6|int(y)<<3|int(z)] = n
				}
			}
		}
	}
	all := []uint8{pOther, pUpper, pLower, pDigit, pSpace, pNewline, pUnsure, pNonASCII}
	one := func(x uint8) []uint8 { return []uint8{x} }
	// One byte: a letter before what no word takes; a digit before a
	// non-digit; a symbol before a digit or a space; a space before a
	// digit, or before another space and then a non-space (\s+(?!\S)
	// gives back the last); a line break before a non-space.
	set(1, one(pUpper), endsWord, all)
	set(1, one(pLower), endsUpperWord, all)
	set(1, one(pDigit), []uint8{pOther, pUpper, pLower, pSpace, pNewline}, all)
	set(1, one(pOther), []uint8{pDigit, pSpace}, all)
	set(1, one(pSpace), one(pDigit), all)
	set(1, one(pSpace), one(pSpace), []uint8{pOther, pUpper, pLower, pDigit})
	set(1, one(pNewline), []uint8{pOther, pUpper, pLower, pDigit}, all)
	// Two bytes: a word of two letters, or of one after a symbol or a
	// space; two digits; a symbol, or a space, and a symbol before a
	// letter, digit or space; a symbol and a line break, a line break or
	// space and a line break, before a non-space.
	set(2, one(pUpper), one(pUpper), endsWord)
	set(2, letter, one(pLower), endsUpperWord)
	set(2, []uint8{pOther, pSpace}, one(pLower), endsUpperWord)
	set(2, []uint8{pOther, pSpace}, one(pUpper), endsWord)
	set(2, one(pDigit), one(pDigit), []uint8{pOther, pUpper, pLower, pSpace, pNewline})
	set(2, []uint8{pOther, pSpace}, one(pOther), []uint8{pUpper, pLower, pDigit, pSpace})
	set(2, []uint8{pOther, pNewline, pSpace}, one(pNewline), []uint8{pOther, pUpper, pLower, pDigit})
	// Three digits, whatever follows.
	set(3, one(pDigit), one(pDigit), one(pDigit))
	// The longer words, as asciiPiece takes them.
	for xyz := range t {
		x, y := uint8(xyz>>6), uint8(xyz>>3&7)
		switch {
		case t[xyz] != 0:
		case x == pNonASCII:
			t[xyz] = nonASCII
		case x == pUpper || x == pLower:
			t[xyz] = wordAt
		case (x == pOther || x == pSpace) && (y == pUpper || y == pLower):
			t[xyz] = wordAfter
		}
	}
	return t
}()

// The values of shortPieces above the lengths.
const (
	wordAt    = 4 // asciiWord(s, p)
	wordAfter = 5 // asciiWord(s, p+1)
	nonASCII  = 6 // runePiece(s, p)
)

// asciiPiece is piece for where ASCII bytes alone decide the piece at
// s[p], as they mostly do in prose, code and IDs: it returns 0 where a
// byte from 0x80 could change it (a letter, mark, digit, space or symbol
// that would extend a run), which piece then reads rune by rune.
func asciiPiece(s string, p int) int {
	k := &asciiKinds
	switch k[s[p]] {
	case kNonASCII:
		return 0
	case kUpper, kLower:
		return asciiWord(s, p)
	case kDigit:
		e := p + 1
		for ; e < len(s) && e < p+3; e++ {
			if c := k[s[e]]; c == kNonASCII {
				return 0
			} else if c != kDigit {
				break
			}
		}
		return e
	case kOther, kSpace:
		// A word after a leading character; else punctuation after an
		// optional space.
		if p+1 < len(s) {
			switch k[s[p+1]] {
			case kUpper, kLower:
				return asciiWord(s, p+1)
			case kNonASCII:
				return 0
			case kOther:
				if s[p] == ' ' {
					return asciiPunct(s, p+1)
				}
			}
		}
		if k[s[p]] == kOther {
			return asciiPunct(s, p)
		}
	}
	// Whitespace, as piece takes it.
	e, last, newline := p+1, p, -1
	if k[s[p]] == kNewline {
		newline = e
	}
	for ; e < len(s); e++ {
		c := k[s[e]]
		if c == kNonASCII {
			return 0
		}
		if c != kSpace && c != kNewline {
			break
		}
		last = e
		if c == kNewline {
			newline = e + 1
		}
	}
	return spaceEnd(len(s), p, e, last, newline)
}

// asciiWord is wordUpperEnd or wordLowerEnd at s[q] (an ASCII letter),
// or 0 where a byte from 0x80 ends a run.
func asciiWord(s string, q int) int {
	k := &asciiKinds
	e := q
	for e < len(s) && k[s[e]] == kUpper {
		e++
	}
	// Eight bytes at a time while they are all a-z (most of a word).
	for e+8 <= len(s) {
		n := lowerRun(load64(s[e:]))
		e += n
		if n < 8 {
			break
		}
	}
	for e < len(s) && k[s[e]] == kLower {
		e++
	}
	if e < len(s) {
		if s[e] >= utf8.RuneSelf {
			return 0
		}
		if s[e] == '\'' {
			return contractionEnd(s, e)
		}
	}
	return e
}

// lowerRun is the number of bytes a-z at the start of x, eight bytes
// little-endian: in each byte, b|0x80 minus 'a' keeps its high bit if b&0x7F
// is at least 'a', minus 'z'+1 if it is above 'z', with no borrow between
// bytes.
func lowerRun(x uint64) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	atLeastA := (x | highs) - 'a'*ones
	aboveZ := (x | highs) - ('z'+1)*ones
	lower := atLeastA &^ aboveZ &^ x & highs
	return bits.TrailingZeros64(^lower&highs) >> 3
}

// asciiPunct takes [^\s\p{L}\p{N}]+[\r\n/]* at s[q], or returns 0 where a
// byte from 0x80 ends the run.
func asciiPunct(s string, q int) int {
	k := &asciiKinds
	e := q
	for e < len(s) && k[s[e]] == kOther {
		e++
	}
	if e < len(s) && s[e] >= utf8.RuneSelf {
		return 0
	}
	for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
		e++
	}
	return e
}

// wordLowerEnd matches [upper]*[lower]+ and a contraction at s[q:], where
// the classes overlap (Lm, Lo and marks are both): the engine takes all the
// upper run, then gives back runes until a lower one can start, so the
// lower run starts right after the upper run when a \p{Ll} is there, else
// at the last rune of the upper run that is also lower. It returns 0 for no
// match.
func wordLowerEnd(t *[classTable]runeClass, s string, q int) int {
	e, both := q, -1
	for {
		c, n := classAt(t, s, e)
		if c&cUpper == 0 {
			if c&cLower == 0 {
				if both < 0 {
					return 0
				}
				// Only the rune at both is lower: the runes after it in
				// the upper run are not, nor is the one after the run.
				_, n := classAt(t, s, both)
				return contractionEnd(s, both+n)
			}
			break
		}
		if c&cLower != 0 {
			both = e
		}
		e += n
	}
	return lowerRunEnd(t, s, e)
}

// wordUpperEnd matches [upper]+[lower]* and a contraction at s[q:], or
// returns 0.
func wordUpperEnd(t *[classTable]runeClass, s string, q int) int {
	e := runEnd(t, s, q, cUpper, cUpper)
	if e == q {
		return 0
	}
	return lowerRunEnd(t, s, e)
}

// lowerRunEnd takes [lower]* from s[e:] and then a contraction.
func lowerRunEnd(t *[classTable]runeClass, s string, e int) int {
	return contractionEnd(s, runEnd(t, s, e, cLower, cLower))
}

// runEnd is the end of the run of runes at s[e:] whose class&mask is want.
// ASCII is looked up here rather than by classAt, which is too big for the
// compiler to inline.
func runEnd(t *[classTable]runeClass, s string, e int, mask, want runeClass) int {
	for e < len(s) {
		if b := s[e]; b < utf8.RuneSelf {
			if t[b]&mask != want {
				break
			}
			e++
			continue
		}
		c, n := classAtMultibyte(t, s, e)
		if c&mask != want {
			break
		}
		e += n
	}
	return e
}

// contractionEnd takes (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[e:] if it is there.
// Case-insensitive matching compares simple case foldings, and of the runes
// that fold to these letters only ſ (U+017F, LATIN SMALL LETTER LONG S,
// folding to s) is not ASCII.
func contractionEnd(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	if e+2 < len(s) && s[e+1] == 0xC5 && s[e+2] == 0xBF { // 'ſ
		return e + 3
	}
	switch s[e+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return e + 2
	case 'r', 'v':
		if e+2 < len(s) && s[e+2]|0x20 == 'e' {
			return e + 3
		}
	case 'l':
		if e+2 < len(s) && s[e+2]|0x20 == 'l' {
			return e + 3
		}
	}
	return e
}
