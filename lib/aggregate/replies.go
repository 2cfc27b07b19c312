package aggregate

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/record"
)

// replies counts, for the tables of one run and bench, what the replies
// cost in tokens (response.usage) and how many came from the cache
// (response.cached), and the same of the judge's calls (judgement.judge).
// The children split-subtasks makes of one reply count once, as their
// parent: the counts are of replies received. Each check's verdict is a
// call of its own.
type replies struct {
	seen, cached map[string]bool
	// tokens are every reply's, paid those of the replies this run's
	// calls paid for (not the cache's), to price.
	tokens, paid     cost.Tokens
	verdicts, saved  int
	judge, judgePaid cost.Tokens
	judgeCalls       int
}

func (p *replies) add(rec *record.Record) {
	var v struct {
		Response *struct {
			Usage *record.Usage `json:"usage"`
			record.FromCache
		} `json:"response"`
		Judgement *struct {
			Judge *record.JudgeCall `json:"judge"`
		} `json:"judgement"`
	}
	if rec.Decode("response", &v.Response) != nil || rec.Decode("judgement", &v.Judgement) != nil {
		return
	}
	if j := v.Judgement; j != nil && j.Judge != nil {
		p.verdicts++
		if j.Judge.Cached {
			p.saved++
		}
		if u := j.Judge.Usage; u != nil {
			p.judgeCalls++
			p.judge.Add(*u)
			if !j.Judge.Cached {
				p.judgePaid.Add(*u)
			}
		}
	}
	id := sentKey(rec)
	if v.Response == nil || v.Response.Usage == nil || p.seen[id] {
		return
	}
	if p.seen == nil {
		p.seen, p.cached = map[string]bool{}, map[string]bool{}
	}
	p.seen[id] = true
	p.tokens.Add(*v.Response.Usage)
	if v.Response.Cached {
		p.cached[id] = true
	} else {
		p.paid.Add(*v.Response.Usage)
	}
}

// mark notes the tokens of the replies and of the judge's calls, their cost
// at the prices given (--price, --judge-price), and the cache's share when
// it answered any.
func (p *replies) mark(res *Result, price, judgePrice cost.Price) {
	var notes []string
	if n := len(p.seen); n > 0 {
		notes = append(notes, "Tokens: "+tokenText(p.tokens)+fmt.Sprintf(", over %d replies (response.usage)", n)+priceText(price, p.paid, len(p.cached) > 0)+".")
	}
	if p.judgeCalls > 0 {
		notes = append(notes, "Judge tokens: "+tokenText(p.judge)+fmt.Sprintf(", over %d judge calls (judgement.judge.usage)", p.judgeCalls)+priceText(judgePrice, p.judgePaid, p.saved > 0)+".")
	}
	var c []string
	if n := len(p.cached); n > 0 {
		c = append(c, fmt.Sprintf("%d of %d replies (response.cached)", n, len(p.seen)))
	}
	if p.saved > 0 {
		c = append(c, fmt.Sprintf("%d of %d judge verdicts (judgement.judge.cached)", p.saved, p.verdicts))
	}
	if len(c) > 0 {
		notes = append(notes, "Cache: "+strings.Join(c, " and ")+" came from the cache (--cache), paid for by an earlier run.")
	}
	for _, n := range notes {
		res.Note("", n)
	}
}

func tokenText(t cost.Tokens) string {
	s := fmt.Sprintf("%d prompt", t.Prompt)
	if t.CachedPrompt > 0 {
		s += fmt.Sprintf(" (%d served by the server's prefix cache)", t.CachedPrompt)
	}
	s += fmt.Sprintf(", %d completion", t.Completion)
	if t.Reasoning > 0 {
		s += fmt.Sprintf(" (%d reasoning)", t.Reasoning)
	}
	return s
}

// priceText is what the calls this run paid for cost at price (none when
// no price is given); what the cache answered was paid by an earlier run.
func priceText(price cost.Price, paid cost.Tokens, cached bool) string {
	if !price.Set() {
		return ""
	}
	s := "; at " + price.String() + " per million tokens they cost " + cost.Money(price.OfTokens(paid))
	if cached {
		s += " (the calls this run paid for; the cache's answers were paid by an earlier run)"
	}
	return s
}
