package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
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

// A second request with the same context finds it in the prefix cache, so
// only its new tokens are prefilled (ttft counts prefill tokens /
// --prefill-tokens-per-sec), and the usage (as vLLM's) and /metrics say so
// after each request: the counts are what the delay is made of, so the test
// needs no clock.
func TestPrefixCacheServer(t *testing.T) {
	opt := DefaultOptions()
	opt.PrefixCacheTokens = 100000
	s := New(opt)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	long := strings.Repeat("the same long context word ", 2000) // ~10k tokens
	ask := func(q string) string {
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(`{"model":"llm-sim","messages":[{"role":"user","content":"`+long+q+`"}],"max_tokens":2}`))
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Usage json.RawMessage }
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		return string(v.Usage)
	}
	metrics := func() (map[string]int, string) {
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
		return m, string(b)
	}
	usage := ask("first?")
	m, text := metrics()
	first := m["prompt_tokens"]
	if first < 5000 || m["prefix_cache_hit_tokens"] != 0 || !strings.Contains(usage, `"prompt_tokens_details":{"cached_tokens":0}`) {
		t.Fatalf("after the first request (nothing cached yet): usage %s, metrics:\n%s", usage, text)
	}
	usage = ask("second?")
	m, text = metrics()
	second := m["prompt_tokens"] - first
	prefilled := second - m["prefix_cache_hit_tokens"]
	if prefilled*10 > second || m["prefix_cache_hit_tokens"] != m["prefix_cache_reusable_tokens"] || m["requests_running"] != 0 || m["completion_requests"] != 2 {
		t.Fatalf("the second request prefilled %d of its %d tokens, want only its new ones:\n%s", prefilled, second, text)
	}
	if strings.Contains(usage, `"cached_tokens":0}`) || !strings.Contains(usage, `"cached_tokens":`) {
		t.Fatalf("the second request's usage does not say what the cache held: %s", usage)
	}
}
