package aggregate

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/record"
)

// replies counts, for the tables of one run and bench, what the replies
// cost in tokens (response.usage) and how many came from the cache
// (response.cached), and how many judge verdicts did (judgement.judge
// .cached). The children split-subtasks makes of one reply count once, as
// their parent: the counts are of replies received.
type replies struct {
	seen, cached    map[string]bool
	tokens          cost.Tokens
	verdicts, saved int
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
	}
}

// mark notes the tokens, and the cache's share when it answered any.
func (p *replies) mark(res *Result) {
	var notes []string
	if n := len(p.seen); n > 0 {
		t := p.tokens
		s := fmt.Sprintf("Tokens: %d prompt", t.Prompt)
		if t.CachedPrompt > 0 {
			s += fmt.Sprintf(" (%d served by the server's prefix cache)", t.CachedPrompt)
		}
		s += fmt.Sprintf(", %d completion", t.Completion)
		if t.Reasoning > 0 {
			s += fmt.Sprintf(" (%d reasoning)", t.Reasoning)
		}
		notes = append(notes, s+fmt.Sprintf(", over %d replies (response.usage).", n))
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
