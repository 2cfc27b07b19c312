package tokens

import (
	"hash/maphash"
	"strings"
	"sync"
)

// pieceCache remembers what a tokenizer.json's BPE made of pieces (words
// repeat, and so do the identifiers of code and emoji sequences), in shards
// so that counting on every core does not queue on one lock. A shard is
// emptied when full.
type pieceCache struct {
	shards [16]pieceShard
}

type pieceShard struct {
	mu sync.Mutex
	m  map[string][]int
}

const pieceCacheShard = 1 << 13

var pieceSeed = maphash.MakeSeed()

func (c *pieceCache) shard(p string) *pieceShard {
	return &c.shards[maphash.String(pieceSeed, p)%uint64(len(c.shards))]
}

func (c *pieceCache) get(p string) ([]int, bool) {
	sh := c.shard(p)
	sh.mu.Lock()
	v, ok := sh.m[p]
	sh.mu.Unlock()
	return v, ok
}

// put keeps a copy of p: a piece is a slice of a prompt the cache must not
// keep alive.
func (c *pieceCache) put(p string, v []int) {
	sh := c.shard(p)
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= pieceCacheShard {
		sh.m = make(map[string][]int, 64)
	}
	sh.m[strings.Clone(p)] = v
	sh.mu.Unlock()
}

// textCounts remembers the counts of long texts by a hash of their content:
// the prompts of a benchmark share their contexts (LIFBench builds dozens of
// prompts on each), which are then counted once.
type textCounts struct {
	mu sync.Mutex
	m  map[uint64]int
}

// minRemembered is the length from which a text's count is remembered
// (shorter ones cost less to count than to hash and look up).
const minRemembered = 512

func (c *textCounts) get(s string) (uint64, int, bool) {
	h := maphash.String(pieceSeed, s)
	n, ok := c.lookup(h)
	return h, n, ok
}

func (c *textCounts) lookup(h uint64) (int, bool) {
	c.mu.Lock()
	n, ok := c.m[h]
	c.mu.Unlock()
	return n, ok
}

func (c *textCounts) put(h uint64, n int) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 1<<16 {
		c.m = make(map[uint64]int, 1024)
	}
	c.m[h] = n
	c.mu.Unlock()
}
