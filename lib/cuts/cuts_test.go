package cuts

import (
	"math/rand/v2"
	"testing"
)

const o200k = "o200k_base~"

// Before any calibration an estimate is judged by the prior margin (a
// quarter + 16 tokens), an exact count by 1 % + 16; no usage is no check.
func TestPrior(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sent, got int
		exact     bool
		cut       bool
		check     Check
	}{
		{"Ollama: a 4k prompt kept to its 2,048-token context (estimate)", 4096, 2048, false, true, Unchecked},
		{"another vocabulary counts a fifth less than o200k (estimate)", 4096, 3300, false, false, Unchecked},
		{"exact: a template counted a few tokens fewer", 4000, 3985, true, false, Exact},
		{"exact: 100 tokens gone", 4000, 3900, true, true, Exact},
		{"short prompts: the slack", 40, 30, true, false, Exact},
		{"no usage reported", 4000, 0, true, false, Unchecked},
		{"estimate: another vocabulary on a long prompt", 10000, 13000, false, false, Unchecked},
		// Without calibration a cut of less than a quarter is not seen, and
		// the record says it was not checked.
		{"estimate: a 5k prompt cut to a 4,096 context passes, unchecked", 5000, 4096, false, false, Unchecked},
		{"exact: a 5k prompt cut to a 4,096 context", 5000, 4096, true, true, Exact},
	} {
		v := New(Server{DropsMessages: true}).Judge(Sample{Sent: tc.sent, Got: tc.got, Exact: tc.exact, Tokenizer: o200k})
		if v.Cut != tc.cut || v.Check != tc.check {
			t.Errorf("%s: %+v, want cut %v, check %s", tc.name, v, tc.cut, tc.check)
		}
	}
}

// replies are n clean replies of a server counting ratio × the client's
// count, give or take spread (uniform), prompts of 1,000 to 3,000 tokens.
func replies(n int, ratio, spread float64, seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]Sample, n)
	for i := range out {
		sent := 1000 + rng.IntN(2000)
		r := ratio * (1 + spread*(2*rng.Float64()-1))
		out[i] = Sample{Sent: sent, Got: int(float64(sent) * r), Tokenizer: o200k}
	}
	return out
}

// A server counting 1.5 × o200k, to within 1 %: after 16 clean replies the
// margin is what that spread allows (3 %, the floor, + 16 tokens), so a cut
// of a tenth is seen, and an uncut prompt at the edge of the spread is not
// taken for one.
func TestCalibration(t *testing.T) {
	c := New(Server{DropsMessages: true})
	for i, s := range replies(40, 1.5, 0.01, 1) {
		c.Observe(s)
		if got := c.Settled(); got != (i+1 >= settleAfter) {
			t.Fatalf("after %d replies settled = %v", i+1, got)
		}
	}
	cut := c.Judge(Sample{Sent: 2000, Got: int(0.9 * 1.5 * 2000), Tokenizer: o200k})
	if !cut.Cut || cut.Why != Short || cut.Check != Calibrated || cut.Margin < minMargin || cut.Margin > 0.05 {
		t.Fatalf("a cut of a tenth: %+v", cut)
	}
	edge := c.Judge(Sample{Sent: 2000, Got: int(0.99 * 1.5 * 2000), Tokenizer: o200k})
	if edge.Cut || edge.Check != Calibrated {
		t.Fatalf("an uncut prompt 1 %% under the ratio: %+v", edge)
	}
	// Another tokenizer is calibrated apart: it is not yet.
	if v := c.Judge(Sample{Sent: 2000, Got: 1700, Tokenizer: "cl100k_base~"}); v.Check != Unchecked || v.Cut {
		t.Fatalf("an uncalibrated tokenizer: %+v", v)
	}
	// A wide spread (±20 %) widens the margin: a cut of a tenth is not seen.
	wide := New(Server{DropsMessages: true})
	for _, s := range replies(40, 1.5, 0.2, 2) {
		wide.Observe(s)
	}
	v := wide.Judge(Sample{Sent: 2000, Got: int(0.9 * 1.5 * 2000), Tokenizer: o200k})
	if v.Cut || v.Check != Calibrated || v.Margin < 0.2 {
		t.Fatalf("wide spread: %+v", v)
	}
}

// Cut replies among the clean ones (a server whose context is not known
// yet) are low outliers: the calibration leaves them out.
func TestCalibrationIgnoresCutReplies(t *testing.T) {
	c := New(Server{DropsMessages: true})
	for i, s := range replies(40, 1.2, 0.01, 3) {
		if i%4 == 0 {
			s.Got /= 2
		}
		c.Observe(s)
	}
	if v := c.Judge(Sample{Sent: 2000, Got: 2400, Tokenizer: o200k}); v.Cut || v.Check != Calibrated || v.Margin > 0.05 {
		t.Fatalf("%+v", v)
	}
	if v := c.Judge(Sample{Sent: 2000, Got: 1200, Tokenizer: o200k}); !v.Cut {
		t.Fatalf("a halved prompt: %+v", v)
	}
}

// Ollama with its context known (/api/ps): a prompt cut to exactly the
// context is flagged however small the cut, so a one-message prompt is
// checked exactly; a chat of several messages may lose a whole older one
// below the context, seen only beyond the margin; a reply that ran past the
// room its prompt left shifted the context.
func TestOllamaContext(t *testing.T) {
	c := New(Server{Context: 1900, CutsToContext: true, DropsMessages: true, ShiftsContext: true})
	for _, tc := range []struct {
		name  string
		s     Sample
		cut   bool
		why   string
		check Check
	}{
		{"cut by 2 %: at the context", Sample{Sent: 1500, Got: 1900, Completion: 0}, true, AtContext, Exact},
		{"under the context", Sample{Sent: 1500, Got: 1800, Completion: 20}, false, "", Exact},
		{"the reply ran past the room left", Sample{Sent: 1500, Got: 1800, Completion: 200}, true, Shifted, Exact},
		{"cannot have fitted", Sample{Sent: 4000, Got: 1000}, true, Short, Exact},
		{"a chat that may have lost a message", Sample{Sent: 1500, Got: 1500, Droppable: true}, false, "", Unchecked},
		{"no usage", Sample{Sent: 1500}, false, "", Unchecked},
	} {
		tc.s.Tokenizer = o200k
		v := c.Judge(tc.s)
		if v.Cut != tc.cut || v.Why != tc.why || v.Check != tc.check {
			t.Errorf("%s: %+v, want cut %v (%s), check %s", tc.name, v, tc.cut, tc.why, tc.check)
		}
	}
}

// SGLang with --allow-auto-truncate cuts a prompt to leave room for its
// max_tokens: a count that fills the context with them was cut, however
// little, though it stays under the context.
func TestReservedReply(t *testing.T) {
	c := New(Server{Context: 4096, ReservesReply: true})
	if v := c.Judge(Sample{Sent: 3110, Got: 3096, MaxTokens: 1000, Exact: true}); !v.Cut || v.Why != AtContext {
		t.Fatalf("cut by 14 tokens to leave the reply's room: %+v", v)
	}
	if v := c.Judge(Sample{Sent: 3000, Got: 2990, MaxTokens: 1000, Exact: true}); v.Cut {
		t.Fatalf("fits with its reply: %+v", v)
	}
}

// A server whose context is not known: several prompts of different
// lengths at one count, none higher, are cut there; alike short prompts
// sharing a count are not.
func TestInferredContext(t *testing.T) {
	c := New(Server{DropsMessages: true})
	for _, sent := range []int{2100, 2150, 2200, 2250} {
		c.Observe(Sample{Sent: sent, Got: 2048, Tokenizer: o200k})
	}
	if n, _, inferred := c.Context(); n != 0 || inferred {
		t.Fatalf("4 alike prompts: context %d", n)
	}
	c.Observe(Sample{Sent: 2300, Got: 2048, Tokenizer: o200k})
	if n, _, inferred := c.Context(); n != 2048 || !inferred {
		t.Fatalf("5 prompts at 2,048: context %d, inferred %v", n, inferred)
	}
	// Cut by a little (1.1 × 2,100 = 2,310 tokens to 2,048): not short by
	// the prior, but at the inferred context.
	if v := c.Judge(Sample{Sent: 2100, Got: 2048, Tokenizer: o200k}); !v.Cut || v.Why != AtContext {
		t.Fatalf("%+v", v)
	}
	if v := c.Judge(Sample{Sent: 1500, Got: 1650, Tokenizer: o200k}); v.Cut {
		t.Fatalf("under the inferred context: %+v", v)
	}
	// Two prompts far apart at one count suffice.
	two := New(Server{})
	two.Observe(Sample{Sent: 1600, Got: 1024})
	two.Observe(Sample{Sent: 3000, Got: 1024})
	if n, _, _ := two.Context(); n != 1024 {
		t.Fatalf("two prompts far apart: context %d", n)
	}
	// Short prompts share counts by chance: no context is inferred.
	short := New(Server{})
	for _, sent := range []int{11, 12, 14, 16, 20} {
		short.Observe(Sample{Sent: sent, Got: 10})
	}
	if n, _, _ := short.Context(); n != 0 {
		t.Fatalf("short prompts: context %d", n)
	}
	// A server that refuses what does not fit has no such context.
	if New(Server{Refuses: true}).Judge(Sample{Sent: 1000, Got: 900, Tokenizer: o200k}).Check != Exact {
		t.Fatal("a refusing server's reply is not exactly checked")
	}
}

// Verdicts follow the replies observed, not the order of the calls: two
// checkers fed the same replies in the same order agree on every verdict,
// whatever Judge was asked in between.
func TestVerdictsFollowObservations(t *testing.T) {
	rs := replies(60, 1.3, 0.02, 4)
	a, b := New(Server{Context: 3000}), New(Server{Context: 3000})
	for i, s := range rs {
		a.Observe(s)
		b.Judge(rs[(i*7)%len(rs)]) // questions asked out of order change nothing
		b.Observe(s)
	}
	for _, s := range rs {
		if va, vb := a.Judge(s), b.Judge(s); va != vb {
			t.Fatalf("%+v: %+v against %+v", s, va, vb)
		}
	}
}
