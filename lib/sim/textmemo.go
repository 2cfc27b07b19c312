package sim

import (
	"hash/maphash"
	"strings"
	"sync"
)

// A long prompt is counted and hashed for the reply seed (hashPieces) on
// every request, at a multiplication per byte: 0.6 ms for 455 KB, on the
// cores the client under test shares. LIFBench sends dozens of prompts on
// one context, so the work is remembered chunk by chunk: a chunk's pieces
// and the FNV-1a state after it, keyed by the state before it and a
// (cheap, memory-speed) hash of its bytes. A prompt that shares its
// context with one seen before then pays only for its own tail.
//
// A chunk ends after a line feed followed by a byte that is not
// whitespace: there a piece always ends (the line feed's whitespace run)
// and the next starts, whatever comes before or after, so the pieces of
// the chunks add up to the text's. The cut is found from fixed offsets,
// so texts that share a prefix share its chunks.

// memoChunk is the shortest chunk; a text shorter than two is hashed whole.
const memoChunk = 8 << 10

type memoKey struct {
	h, sum uint64 // the FNV-1a state before the chunk, the chunk's maphash
	n      int
}

type memoVal struct {
	h      uint64 // the FNV-1a state after the chunk
	pieces int
}

// textMemo holds the chunks' results; it starts over when full.
var textMemo struct {
	mu sync.Mutex
	m  map[memoKey]memoVal
}

const memoEntries = 1 << 16

var memoSeed = maphash.MakeSeed()

// hashText is hashPieces(s, h, 0): the pieces of s, and s folded into the
// FNV-1a state h, long texts a remembered chunk at a time.
func hashText(s string, h uint64) (pieces int, _ uint64) {
	return hashChunks(s, h, memoChunk)
}

// hashChunks is hashText with chunks of at least `least` bytes.
func hashChunks(s string, h uint64, least int) (pieces int, _ uint64) {
	for len(s) > 0 {
		c := s[:chunkEnd(s, least)]
		s = s[len(c):]
		if len(c) < least {
			n, sum := hashPieces(c, h, 0)
			pieces, h = pieces+n, sum
			continue
		}
		k := memoKey{h, maphash.String(memoSeed, c), len(c)}
		textMemo.mu.Lock()
		v, ok := textMemo.m[k]
		textMemo.mu.Unlock()
		if !ok {
			v.pieces, v.h = hashPieces(c, h, 0)
			textMemo.mu.Lock()
			if len(textMemo.m) >= memoEntries || textMemo.m == nil {
				textMemo.m = make(map[memoKey]memoVal, 1024)
			}
			textMemo.m[k] = v
			textMemo.mu.Unlock()
		}
		pieces, h = pieces+v.pieces, v.h
	}
	return pieces, h
}

// chunkEnd is the end of s's first chunk: the first cut (a line feed and a
// byte that is not whitespace) at least `least` bytes in, leaving at
// least as many after it; else all of s.
func chunkEnd(s string, least int) int {
	for q := least - 1; q < len(s)-least; q++ {
		i := strings.IndexByte(s[q:len(s)-least], '\n')
		if i < 0 {
			break
		}
		q += i
		if !isSpace(s[q+1]) {
			return q + 1
		}
	}
	return len(s)
}
