package cost

import (
	"math"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/record"
)

func TestParsePrice(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Price
		err  bool
	}{
		{"", Price{}, false},
		{"in=2.5,out=10", Price{In: 2.5, Cached: 2.5, Out: 10, GPUs: 1, perToken: true, text: "in=2.5,out=10"}, false},
		{"in=2.5, out=10, cached=1.25", Price{In: 2.5, Cached: 1.25, Out: 10, GPUs: 1, perToken: true, text: "in=2.5, out=10, cached=1.25"}, false},
		{"gpu-hour=2.1,gpus=8", Price{GPUHour: 2.1, GPUs: 8, text: "gpu-hour=2.1,gpus=8"}, false},
		{"gpu-hour=2", Price{GPUHour: 2, GPUs: 1, text: "gpu-hour=2"}, false},
		{"in=1", Price{}, true},
		{"in=1,out=2,gpu-hour=3", Price{}, true},
		{"gpus=2", Price{}, true},
		{"in=-1,out=2", Price{}, true},
		{"in=1,in=2,out=1", Price{}, true},
		{"fee=1", Price{}, true},
		{"gpu-hour=2,gpus=0", Price{}, true},
		{"in:1,out:2", Price{}, true},
	} {
		got, err := ParsePrice(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParsePrice(%q) = %+v, %v", c.in, got, err)
		}
	}
}

func TestAccount(t *testing.T) {
	var tok Tokens
	tok.Add(record.Usage{PromptTokens: 1_000_000, CompletionTokens: 200_000,
		PromptTokensDetails: &record.PromptTokensDetails{CachedTokens: 400_000}, CompletionTokensDetails: &record.CompletionTokensDetails{ReasoningTokens: 50_000}})
	tok.Add(record.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000})
	if tok != (Tokens{Prompt: 2_000_000, CachedPrompt: 400_000, Completion: 300_000, Reasoning: 50_000}) {
		t.Fatalf("tokens %+v", tok)
	}
	p, _ := ParsePrice("in=2,out=10,cached=0.5")
	a := Account{Tokens: tok, CacheTokens: Tokens{Prompt: 1_000_000}, WallS: 7200}
	a.Priced(p)
	// 1.6M uncached × 2 + 0.4M × 0.5 + 0.3M × 10, per million.
	if want := 3.2 + 0.2 + 3; math.Abs(*a.Cost-want) > 1e-9 || *a.CostSaved != 2 || a.Price != "in=2,out=10,cached=0.5" {
		t.Fatalf("cost %v saved %v, want %v", *a.Cost, *a.CostSaved, want)
	}
	g, _ := ParsePrice("gpu-hour=2.5,gpus=4")
	b := Account{Tokens: tok, WallS: 1800}
	b.Priced(g)
	if *b.Cost != 5 || b.CostSaved != nil {
		t.Fatalf("gpu cost %v", *b.Cost)
	}
	if g.OfWall(90*time.Minute) != 15 {
		t.Fatal(g.OfWall(90 * time.Minute))
	}
	var none Account
	none.Priced(Price{})
	if none.Cost != nil {
		t.Fatal("cost without a price")
	}
	for x, want := range map[float64]string{1234.5: "1234", 12.345: "12.35", 0.0123: "0.0123"} {
		if Money(x) != want {
			t.Errorf("Money(%v) = %s", x, Money(x))
		}
	}
}
