package longins

import (
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
)

// Rubric names the scorer in every judgement.
const Rubric = "longins-f1/1"

// DetailOverLimit is the judgement.detail key that counts the reply's
// numbers the official eval.py cannot read (Predicted).
const DetailOverLimit = "int_over_limit"

// Predicted is the official eval.py's reading of a reply: every integer
// inside each re.findall(r'\[(.*?)\]') match (non-greedy, never across a
// line break), as a set. Python's \d and int() accept every Unicode decimal
// digit, so "[٣]" is 3; numbers are kept as canonical decimal strings so
// that huge ones compare correctly.
//
// overLimit counts the numbers of more than pystr.IntMaxStrDigits digits:
// eval.py's int() raises ValueError on them on Python 3.10.7+, and the
// official evaluation stops. Such a reply has no official score; it is
// scored as eval.py scores it without the limit (each such number a
// prediction that names no question), and the judgement says so.
func Predicted(reply string) (pred []string, overLimit int) {
	seen := map[string]bool{}
	for i := 0; i < len(reply); {
		open := strings.IndexByte(reply[i:], '[')
		if open < 0 {
			break
		}
		open += i
		rest := reply[open+1:]
		end := strings.IndexAny(rest, "]\n")
		if end < 0 || rest[end] == '\n' {
			// No "]" before the line ends: this "[" matches nothing; the
			// search resumes at the next character, as re.findall does.
			i = open + 1
			continue
		}
		for _, n := range integers(rest[:end]) {
			if len(n.raw) > pystr.IntMaxStrDigits {
				overLimit++
			}
			if !seen[n.value] {
				seen[n.value] = true
				pred = append(pred, n.value)
			}
		}
		i = open + 1 + end + 1
	}
	return pred, overLimit
}

// integer is a run of decimal digits: as written, in ASCII digits, and as
// a canonical decimal string.
type integer struct{ raw, value string }

// integers returns the runs of Unicode decimal digits in s.
func integers(s string) []integer {
	var out []integer
	var cur []byte
	flush := func() {
		if cur != nil {
			t := strings.TrimLeft(string(cur), "0")
			if t == "" {
				t = "0"
			}
			out = append(out, integer{string(cur), t})
			cur = nil
		}
	}
	for _, r := range s {
		if d := pystr.DecimalValue(r); d >= 0 {
			cur = append(cur, byte('0'+d))
			continue
		}
		flush()
	}
	flush()
	return out
}

// F1 is the official set F1: 0 when the prediction or the gold is empty.
func F1(pred []string, gold []int) (f1 float64, tp int) {
	g := make(map[string]bool, len(gold))
	for _, w := range gold {
		g[strconv.Itoa(w)] = true
	}
	for _, p := range pred {
		if g[p] {
			tp++
		}
	}
	fp, fn := len(pred)-tp, len(g)-tp
	if tp+fp == 0 || tp+fn == 0 {
		return 0, tp
	}
	p, r := float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn)
	if p+r == 0 {
		return 0, tp
	}
	return 2 * p * r / (p + r), tp
}

// Hit is one wrong question and whether the reply named it.
type Hit struct {
	ID    int  `json:"id"`
	Depth int  `json:"depth"`
	Hit   bool `json:"hit"`
}

type scorer struct{}

// NewScorer is the judge factory for LongIns (deterministic; no options).
func NewScorer(judge.Options) (judge.Scorer, error) { return scorer{}, nil }

func (scorer) Prepare(rec *record.Record) (judge.Decision, error) {
	var g Gold
	if err := rec.Decode("gold", &g); err != nil {
		return judge.Decision{}, app.Invalid(err)
	}
	if len(g.Depths) != len(g.Wrong) {
		return judge.Decision{}, app.Invalidf("longins record %q: gold.depths and gold.wrong differ in length", rec.ID())
	}
	if !rec.Has("response") {
		return judge.Decision{}, app.Invalidf("longins record %q has no response to judge", rec.ID())
	}
	var resp record.Response
	if err := rec.Decode("response", &resp); err != nil {
		return judge.Decision{}, app.Invalid(err)
	}
	pred, overLimit := Predicted(resp.Text)
	f1, tp := F1(pred, g.Wrong)
	named := make(map[string]bool, len(pred))
	for _, p := range pred {
		named[p] = true
	}
	hits := make([]Hit, len(g.Wrong))
	for i, w := range g.Wrong {
		hits[i] = Hit{ID: w, Depth: g.Depths[i], Hit: named[strconv.Itoa(w)]}
	}
	verdict := "no"
	if f1 == 1 {
		verdict = "yes"
	}
	detail := map[string]any{"predicted": pred, "true_positives": tp, "gold_wrong": len(g.Wrong), "hits": hits}
	if overLimit > 0 {
		detail[DetailOverLimit] = overLimit
	}
	return judge.Decision{Judgement: &record.Judgement{Score: f1, Verdict: verdict, Rubric: Rubric, Detail: detail}}, nil
}

func (scorer) Parse(*record.Record, string) (*record.Judgement, error) {
	return nil, app.Usagef("longins is scored deterministically; it never asks a judge model")
}
