package ifscale

import (
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
)

// Rubric names the classifier in every judgement.
const Rubric = "ifscale-analysis/1"

// Reasons the official runner rejects (and retries) a reply.
const (
	RejectKeywordList = "keyword_list" // ten or more comma-separated, purely alphabetic parts
	RejectTooShort    = "too_short"    // fewer than 20 whitespace-separated words
)

// KeywordResult is one keyword's outcome; Position counts from 1 as the
// constraint lines do.
type KeywordResult struct {
	Keyword  string `json:"keyword"`
	Position int    `json:"position"`
	Class    string `json:"class"`
}

// Detail is judgement.detail for IFScale.
type Detail struct {
	N            int             `json:"n"`
	Exact        int             `json:"exact"`
	Modification int             `json:"modification"`
	Omission     int             `json:"omission"`
	Rejected     string          `json:"rejected,omitempty"` // why the official runner would have retried this reply
	Keywords     []KeywordResult `json:"keywords"`
}

// Judge classifies every keyword against the reply, as analysis.py does: on
// the lower-cased text, <report> tags and markdown left in.
func Judge(text string, keywords []string) Detail {
	rp := NewReply(text)
	d := Detail{Rejected: Rejection(text)}
	for _, kw := range keywords {
		if Term(kw) == "" {
			continue // blank constraints are dropped, as _tokenise_constraints does
		}
		c := rp.Classify(kw)
		switch c {
		case Exact:
			d.Exact++
		case Modification:
			d.Modification++
		default:
			d.Omission++
		}
		d.Keywords = append(d.Keywords, KeywordResult{Keyword: kw, Position: len(d.Keywords) + 1, Class: c.String()})
	}
	d.N = len(d.Keywords)
	return d
}

// Rejection is the official runner's acceptance test without the coherence
// gate (a paid o4-mini call): "" when the reply would have been accepted.
// It follows call_model in the official util.py: a "cheating list" is ten or
// more comma-separated parts that, stripped, each fullmatch [A-Za-z]+ (so a
// list of accented words passes), and a short reply has fewer than 20
// words of str.split().
func Rejection(text string) string {
	parts := strings.Split(text, ",")
	if len(parts) >= 10 && !slices.ContainsFunc(parts, func(p string) bool { return !asciiLetters(pystr.Strip(p)) }) {
		return RejectKeywordList
	}
	if pystr.CountFields(text) < 20 {
		return RejectTooShort
	}
	return ""
}

func asciiLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

type scorer struct{}

// NewScorer is the judge factory for IFScale (deterministic; no options).
func NewScorer(judge.Options) (judge.Scorer, error) { return scorer{}, nil }

func (scorer) Prepare(rec *record.Record) (judge.Decision, error) {
	var g Gold
	if err := rec.Decode("gold", &g); err != nil {
		return judge.Decision{}, app.Invalid(err)
	}
	if len(g.Keywords) == 0 {
		return judge.Decision{}, app.Invalidf("ifscale record %q has no gold.keywords", rec.ID())
	}
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		return judge.Decision{}, app.Invalid(err)
	}
	if !rec.Has("response") {
		return judge.Decision{}, app.Invalidf("ifscale record %q has no response to judge", rec.ID())
	}
	d := Judge(resp.Text, g.Keywords)
	if d.N == 0 {
		return judge.Decision{}, app.Invalidf("ifscale record %q has only blank gold.keywords", rec.ID())
	}
	verdict := "yes"
	if d.Exact < d.N {
		verdict = "no"
	}
	return judge.Decision{Judgement: &record.Judgement{
		Score:   float64(d.Exact) / float64(d.N),
		Verdict: verdict,
		Rubric:  Rubric,
		Detail:  detailMap(d),
	}}, nil
}

func (scorer) Parse(rec *record.Record, reply string) (*record.Judgement, error) {
	return nil, app.Usagef("ifscale is scored deterministically; it never asks a judge model")
}

// detailMap turns Detail into judgement.detail (a map in the shared type).
func detailMap(d Detail) map[string]any {
	m := map[string]any{"n": d.N, "exact": d.Exact, "modification": d.Modification, "omission": d.Omission, "keywords": d.Keywords}
	if d.Rejected != "" {
		m["rejected"] = d.Rejected
	}
	return m
}
