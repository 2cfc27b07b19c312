package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestPrefixCacheLookup(t *testing.T) {
	ctx := func(c string) string { return strings.Repeat(c, 4*cacheBlock) } // 4 blocks
	type step struct {
		text           string
		tokens         int
		hit, reuseWant int
	}
	for _, tc := range []struct {
		name     string
		capacity int
		steps    []step
	}{
		{"shared context hits its blocks", 1000, []step{
			{ctx("a") + "question one", 400, 0, 0},
			{ctx("a") + "question two", 400, 4 * 400 * cacheBlock / (4*cacheBlock + 12), 4 * 400 * cacheBlock / (4*cacheBlock + 12)},
			{ctx("b") + "question one", 400, 0, 0},
		}},
		{"no cache: nothing hits, the reuse is still counted", 0, []step{
			{ctx("a"), 400, 0, 0},
			{ctx("a"), 400, 0, 0},
		}},
		// 100 tokens per block, room for 5 blocks: b's 4 blocks evict 3 of a's
		// (its tail first), so a's first block still hits.
		{"LRU evicts the tail of a prefix first", 500, []step{
			{ctx("a"), 400, 0, 0},
			{ctx("b"), 400, 0, 0},
			{ctx("a"), 400, 100, 400},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &prefixCache{capacity: tc.capacity}
			var reuse int64
			for i, s := range tc.steps {
				before := c.reusableTokens
				if got := c.lookup(s.text, s.tokens); got != s.hit {
					t.Fatalf("step %d: %d tokens hit, want %d", i, got, s.hit)
				}
				if tc.capacity > 0 && c.reusableTokens-before != int64(s.reuseWant) {
					t.Fatalf("step %d: %d reusable, want %d", i, c.reusableTokens-before, s.reuseWant)
				}
				reuse = c.reusableTokens
				if c.used > max(tc.capacity, 0) {
					t.Fatalf("step %d: %d tokens cached over a capacity of %d", i, c.used, tc.capacity)
				}
			}
			if reuse < c.hitTokens {
				t.Fatalf("more hits (%d) than reusable tokens (%d)", c.hitTokens, reuse)
			}
		})
	}
}

// A second request with the same context is answered sooner (its prefill
// is cached), and /metrics counts it.
func TestPrefixCacheServer(t *testing.T) {
	opt := DefaultOptions()
	// A slow prefill (2 s for the long context) keeps the ratio below clear
	// of the server's own parsing and counting, which a loaded machine slows.
	opt.PrefillTPS = 5000
	opt.PrefixCacheTokens = 100000
	s := New(opt)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	long := strings.Repeat("the same long context word ", 2000) // ~10k tokens
	var usage []string
	ask := func(q string) time.Duration {
		start := time.Now()
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(`{"model":"llm-sim","messages":[{"role":"user","content":"`+long+q+`"}],"max_tokens":2}`))
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Usage json.RawMessage }
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		usage = append(usage, string(v.Usage))
		return time.Since(start)
	}
	first, second := ask("first?"), ask("second?")
	if second*3 > first {
		t.Fatalf("the cached request took %v, the first %v", second, first)
	}
	// The usage says so, as vLLM's does.
	if !strings.Contains(usage[0], `"prompt_tokens_details":{"cached_tokens":0}`) || strings.Contains(usage[1], `"cached_tokens":0}`) || !strings.Contains(usage[1], `"cached_tokens":`) {
		t.Fatalf("usage: %s", usage)
	}
	resp, err := http.Get(strings.TrimSuffix(base, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		var name string
		var v int
		if !strings.HasPrefix(line, "#") && line != "" {
			if _, err := fmt.Sscan(line, &name, &v); err != nil {
				t.Fatalf("metrics line %q: %v", line, err)
			}
			m[name] = v
		}
	}
	if m["prefix_cache_hit_tokens"] == 0 || m["prefix_cache_hit_tokens"] != m["prefix_cache_reusable_tokens"] || m["prompt_tokens"] < 2*m["prefix_cache_hit_tokens"] || m["requests_running"] != 0 || m["completion_requests"] != 2 {
		t.Fatalf("metrics:\n%s", b)
	}
}
