package sim

import (
	"container/list"
	"fmt"
	"hash/maphash"
	"net/http"
	"sync"
)

// cacheBlock is how many bytes of prompt text make one block of the prefix
// cache: about 128 tokens. vLLM's blocks are 16 tokens; a coarser block keeps
// the unlimited-cache bookkeeping small over a 2,800-prompt grid of 120k
// tokens, and changes the hit counts by at most one block per request.
const cacheBlock = 512

// prefixCache models vLLM's automatic prefix caching: a prompt is cut into
// blocks, each named by a hash of the prompt up to its end, so a block
// matches only when the whole prefix up to it does. The blocks a request
// finds cached (from its first one on, stopping at the first miss) cost no
// prefill; the others are computed and cached. Least recently used blocks
// are evicted beyond the capacity in tokens. A set of every block ever seen
// tells what an unlimited cache would have hit (the reusable tokens), so a
// benchmark can say which share of the reuse its dispatch order got.
type prefixCache struct {
	mu       sync.Mutex
	capacity int // tokens; 0: no cache
	used     int
	lru      *list.List               // of *cacheEntry, most recent first
	blocks   map[uint64]*list.Element // cached
	seen     map[uint64]struct{}      // ever computed

	hitTokens, reusableTokens, promptTokens int64
}

type cacheEntry struct {
	hash   uint64
	tokens int
}

// lookup returns how many of the prompt's tokens were cached, and caches
// the rest. Tokens are shared among the blocks by their bytes.
func (c *prefixCache) lookup(text string, promptTokens int) (cached int) {
	var keys []uint64
	if c.capacity > 0 {
		keys = prefixKeys(text) // outside the lock: 64 long prompts may arrive at once
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.promptTokens += int64(promptTokens)
	if c.capacity <= 0 || len(text) == 0 {
		return 0
	}
	if c.blocks == nil {
		c.lru, c.blocks, c.seen = list.New(), map[uint64]*list.Element{}, map[uint64]struct{}{}
	}
	hitting, reusing := true, true
	hitBytes, reuseBytes := 0, 0
	for _, key := range keys {
		if _, ok := c.seen[key]; ok && reusing {
			reuseBytes += cacheBlock
		} else {
			reusing = false
			c.seen[key] = struct{}{}
		}
		if _, ok := c.blocks[key]; ok && hitting {
			hitBytes += cacheBlock
		} else {
			hitting = false
		}
	}
	// The first blocks end up most recent, so eviction takes a prefix's
	// tail first, as vLLM frees a request's blocks from the end.
	tokens := promptTokens * cacheBlock / len(text)
	for i := len(keys) - 1; i >= 0; i-- {
		if el, ok := c.blocks[keys[i]]; ok {
			c.lru.MoveToFront(el)
			continue
		}
		c.blocks[keys[i]] = c.lru.PushFront(&cacheEntry{hash: keys[i], tokens: tokens})
		c.used += tokens
	}
	for c.used > c.capacity && c.lru.Len() > 0 {
		el := c.lru.Back()
		e := el.Value.(*cacheEntry)
		c.lru.Remove(el)
		delete(c.blocks, e.hash)
		c.used -= e.tokens
	}
	cached = promptTokens * hitBytes / len(text)
	c.hitTokens += int64(cached)
	c.reusableTokens += int64(promptTokens * reuseBytes / len(text))
	return cached
}

// prefixSeed seeds the names of the cache blocks (prefixKeys).
var prefixSeed = maphash.MakeSeed()

// prefixKeys names each whole block of text by a hash of the text up to its
// end. maphash reads a 455 KB prompt at memory speed; FNV-1a, which the
// reply seed must keep, takes a multiplication per byte.
func prefixKeys(text string) []uint64 {
	var h maphash.Hash
	h.SetSeed(prefixSeed)
	keys := make([]uint64, 0, len(text)/cacheBlock)
	for at := 0; at+cacheBlock <= len(text); at += cacheBlock {
		h.WriteString(text[at : at+cacheBlock])
		keys = append(keys, h.Sum64())
	}
	return keys
}

// prefillTokens is what a request pays prefill for: its prompt tokens less
// those the prefix cache holds.
func (s *Server) prefillTokens(req *Request, promptTokens int) int {
	if s.pc.capacity <= 0 {
		// No cache: no need to join a 455 KB prompt's messages.
		return promptTokens - s.pc.lookup("", promptTokens)
	}
	return promptTokens - s.pc.lookup(req.Text(), promptTokens)
}

// metrics serves GET /metrics in Prometheus' text format: the prefix
// cache's counts, and the completion requests received (a test counts what
// a client paid for).
func (s *Server) metrics(w http.ResponseWriter) {
	s.pc.mu.Lock()
	hit, reuse, prompt := s.pc.hitTokens, s.pc.reusableTokens, s.pc.promptTokens
	s.pc.mu.Unlock()
	st := s.Stats()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	for _, m := range []struct {
		name, kind, help string
		v                int64
	}{
		{"prefix_cache_hit_tokens", "counter", "Prompt tokens found in the prefix cache (no prefill).", hit},
		{"prefix_cache_reusable_tokens", "counter", "Prompt tokens an unlimited prefix cache would have found.", reuse},
		{"prompt_tokens", "counter", "Prompt tokens of the requests admitted.", prompt},
		{"completion_requests", "counter", "Requests to /v1/chat/completions and /v1/completions received.", st.ByPath["/v1/chat/completions"] + st.ByPath["/v1/completions"]},
		{"requests_running", "gauge", "Requests being generated.", s.inflight.Load()},
		{"requests_waiting", "gauge", "Requests waiting for a slot (--max-concurrency).", s.queued.Load()},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", m.name, m.help, m.name, m.kind, m.name, m.v)
	}
}
