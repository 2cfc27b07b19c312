package cost

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/record"
)

// Tokens are usage summed over replies.
type Tokens struct {
	Prompt int64 `json:"prompt"`
	// CachedPrompt are the prompt tokens the server's prefix cache served
	// (usage.prompt_tokens_details.cached_tokens), where it reports them.
	CachedPrompt int64 `json:"cached_prompt"`
	Completion   int64 `json:"completion"`
	// Reasoning are the completion tokens spent reasoning
	// (usage.completion_tokens_details.reasoning_tokens).
	Reasoning int64 `json:"reasoning"`
}

// Add counts one reply's usage.
func (t *Tokens) Add(u record.Usage) {
	t.Prompt += int64(u.PromptTokens)
	t.CachedPrompt += int64(u.CachedTokens())
	t.Completion += int64(u.CompletionTokens)
	t.Reasoning += int64(u.ReasoningTokens())
}

// Answers say where a run's answers came from.
type Answers struct {
	Paid   int64 `json:"paid"`   // a call of this run
	Cache  int64 `json:"cache"`  // the cache: paid by an earlier run
	Resume int64 `json:"resume"` // an earlier output (--resume)
}

// Account is what a run paid: every run's summary, --stats and manifest
// ("usage") give it.
type Account struct {
	Answers Answers `json:"answers"`
	// Tokens were sent and received by this run's calls (every reply the
	// server gave, also those asked for again).
	Tokens Tokens `json:"tokens"`
	// CacheTokens are those of the replies the cache answered: paid once,
	// by the run that stored them.
	CacheTokens Tokens `json:"cache_tokens"`
	// CacheRun is the name this run's replies carry in the cache, which
	// records answered from them give as response.cached_run.
	CacheRun string  `json:"cache_run,omitempty"`
	WallS    float64 `json:"wall_s"`
	Price    string  `json:"price,omitempty"`
	// Cost is what this run paid at Price; CostSaved what the cache's
	// answers would have cost again (token prices only).
	Cost      *float64 `json:"cost,omitempty"`
	CostSaved *float64 `json:"cost_saved,omitempty"`
}

// Price is --price: per million tokens (in, cached, out), or per GPU hour
// of the run's wall time. Reasoning tokens are output tokens, as the
// servers count and bill them.
type Price struct {
	In, Cached, Out float64 // per million tokens; Cached defaults to In
	GPUHour         float64
	GPUs            int
	perToken        bool
	text            string
}

// Syntax is --price's, for messages.
const Syntax = "in=P,out=P[,cached=P] (per million tokens) or gpu-hour=P[,gpus=N]"

// ParsePrice reads --price ("" is no price).
func ParsePrice(s string) (Price, error) {
	p := Price{text: strings.TrimSpace(s), GPUs: 1}
	if p.text == "" {
		return Price{}, nil
	}
	seen := map[string]bool{}
	for _, f := range strings.Split(p.text, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || seen[k] {
			return Price{}, fmt.Errorf("%q: want %s", s, Syntax)
		}
		seen[k] = true
		if k == "gpus" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return Price{}, fmt.Errorf("gpus=%s: want a whole number, at least 1", v)
			}
			p.GPUs = n
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 {
			return Price{}, fmt.Errorf("%s=%s: want a price, 0 or more", k, v)
		}
		switch k {
		case "in":
			p.In = x
		case "out":
			p.Out = x
		case "cached":
			p.Cached = x
		case "gpu-hour":
			p.GPUHour = x
		default:
			return Price{}, fmt.Errorf("%q: unknown %q; want %s", s, k, Syntax)
		}
	}
	switch tokens := seen["in"] || seen["out"] || seen["cached"]; {
	case tokens && seen["gpu-hour"], seen["gpus"] && !seen["gpu-hour"]:
		return Price{}, fmt.Errorf("%q: either token prices or a GPU-hour price, not both; want %s", s, Syntax)
	case tokens && !(seen["in"] && seen["out"]):
		return Price{}, fmt.Errorf("%q: give both in= and out=", s)
	}
	if !seen["cached"] {
		p.Cached = p.In
	}
	p.perToken = !seen["gpu-hour"]
	return p, nil
}

// Set reports whether a price was given.
func (p Price) Set() bool { return p.text != "" }

// PerToken reports whether the price is per token (else per GPU hour).
func (p Price) PerToken() bool { return p.perToken }

func (p Price) String() string { return p.text }

// OfTokens is what t cost at the token prices.
func (p Price) OfTokens(t Tokens) float64 {
	uncached := max(t.Prompt-t.CachedPrompt, 0)
	return (float64(uncached)*p.In + float64(min(t.CachedPrompt, t.Prompt))*p.Cached + float64(t.Completion)*p.Out) / 1e6
}

// OfWall is what wall time cost at the GPU-hour price.
func (p Price) OfWall(wall time.Duration) float64 {
	return wall.Hours() * float64(p.GPUs) * p.GPUHour
}

// Priced fills the account's cost from its tokens and wall time.
func (a *Account) Priced(p Price) {
	if !p.Set() {
		return
	}
	a.Price = p.String()
	var c float64
	if p.PerToken() {
		c = p.OfTokens(a.Tokens)
		saved := p.OfTokens(a.CacheTokens)
		a.CostSaved = &saved
	} else {
		c = p.OfWall(time.Duration(a.WallS * float64(time.Second)))
	}
	a.Cost = &c
}

// Money writes an amount for a summary (the currency is the price's): to
// the cent, or four places below one.
func Money(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}
