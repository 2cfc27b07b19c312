package lifbench

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/tokens"
)

// genContexts builds contexts in memory.
func genContexts(t testing.TB, lengths string, seed uint64) []*record.Record {
	t.Helper()
	ls, err := ParseLengths(lengths)
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.Record
	err = Generate(GenOptions{Scenarios: Scenarios, Lengths: ls, Seed: seed}, func(r *record.Record) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func expandAll(t testing.TB, ctxs []*record.Record, opt expand.Options, templates string) []*record.Record {
	t.Helper()
	e, err := NewExpander(opt, templates)
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.Record
	for _, c := range ctxs {
		if err := e.Expand(c, func(r *record.Record) error {
			// Round-trip through JSON, as between two programs.
			r2, err := record.Parse(r.AppendJSON(nil))
			if err != nil {
				t.Fatalf("%s: %v", r.ID(), err)
			}
			out = append(out, r2)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// simRequest turns a request record into what llm-sim's solvers see.
func simRequest(t testing.TB, rec *record.Record) *sim.Request {
	t.Helper()
	p, err := promptOf(rec)
	if err != nil {
		t.Fatal(err)
	}
	return &sim.Request{Chat: true, Messages: []sim.Message{{Role: "user", Content: p}}}
}

// Every --tokenizer, a model's tokenizer.json included, keeps contexts
// within budget with context.tokens the count of the text. For the encodings
// in sumIsExact, context.tokens is the sum of the pieces' counts, so this
// also checks that summing is exact.
func TestContextsFitTheirBudgetExactly(t *testing.T) {
	short, err := ParseLengths("1k,2k,5000")
	if err != nil {
		t.Fatal(err)
	}
	// The project's tiny tokenizer.json spends a token on most letters.
	long, _ := ParseLengths("4k,8k")
	for _, name := range append(tokens.Names, "../tokens/testdata/tiny-sentencepiece.json") {
		enc := tokens.MustGet(name)
		ls := short
		if !tokens.IsEncoding(name) {
			ls = long
		}
		err := Generate(GenOptions{Scenarios: Scenarios, Lengths: ls, Seed: 7, Tokenizer: name}, func(c *record.Record) error {
			var ctx Context
			if err := c.Decode("context", &ctx); err != nil {
				return err
			}
			if ctx.Tokenizer != enc.Name {
				t.Errorf("%s: context.tokenizer %q, want %q", c.ID(), ctx.Tokenizer, enc.Name)
			}
			got := enc.Count(ctx.Text)
			if got != ctx.Tokens {
				t.Errorf("%s (%s): summed %d tokens, the text has %d", c.ID(), name, ctx.Tokens, got)
			}
			if got > ctx.Budget || got < ctx.Budget*3/4 {
				t.Errorf("%s (%s): %d tokens for a budget of %d", c.ID(), name, got, ctx.Budget)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a := genContexts(t, "1k", 3)
	b := genContexts(t, "1k", 3)
	c := genContexts(t, "1k", 4)
	for i := range a {
		if string(a[i].AppendJSON(nil)) != string(b[i].AppendJSON(nil)) {
			t.Errorf("%s differs between two runs with the same seed", a[i].ID())
		}
		if string(a[i].Raw("context")) == string(c[i].Raw("context")) {
			t.Errorf("%s is the same with another seed", a[i].ID())
		}
	}
}

func TestExpandCounts(t *testing.T) {
	reqs := expandAll(t, genContexts(t, "1k", 0), expand.Options{}, "")
	per := map[string]int{}
	ids := map[string]bool{}
	for _, r := range reqs {
		per[r.String("task")]++
		if ids[r.ID()] {
			t.Errorf("duplicate id %s", r.ID())
		}
		ids[r.ID()] = true
	}
	want := map[string]int{"repeat": 25, "extract": 25, "qa": 30, "single_query_id": 30, "multi_query_id": 25,
		"offset_query_id": 72, "blur_offset_query_id": 66, "offset_query_element": 72, "blur_offset_query_element": 72,
		"find_dup_text": 25, "batch_label": 25}
	for k, v := range want {
		if per[k] != v {
			t.Errorf("%s: %d prompts, want %d", k, per[k], v)
		}
	}
	if len(reqs) != 467 {
		t.Errorf("%d prompts per length, want 467 as official", len(reqs))
	}
}

// TestSkillOneScoresFullMarks is the rubric's principle: correct answers get
// full marks, under both rubrics.
func TestSkillOneScoresFullMarks(t *testing.T) {
	reqs := expandAll(t, genContexts(t, "1k,2k", 11), expand.Options{Seed: 5}, "")
	for _, strict := range []bool{false, true} {
		for _, r := range reqs {
			task, _ := TaskByName(r.String("task"))
			reply, ok := Solver{}.Solve(simRequest(t, r), sim.Params{Skill: 1, Rand: rand.New(rand.NewPCG(1, 2))})
			if !ok {
				t.Fatalf("%s: the solver did not recognise the prompt", r.ID())
			}
			var g Gold
			if err := r.Decode("gold", &g); err != nil {
				t.Fatal(err)
			}
			p, _ := promptOf(r)
			j, err := Score(task, p, reply, &g, strict)
			if err != nil {
				t.Fatalf("%s: %v", r.ID(), err)
			}
			if j.Score < 1-1e-9 {
				t.Errorf("%s (strict %v): score %.4f for the skill-1 answer %q; points %+v", r.ID(), strict, j.Score, trunc(reply), j.Points)
			}
			if want := map[bool]string{false: RubricOfficial, true: RubricStrict}[strict]; j.Rubric != want {
				t.Errorf("%s: judgement.rubric %q, want %q", r.ID(), j.Rubric, want)
			}
			if len(j.Points) != len(task.Points) {
				t.Errorf("%s: %d points, want every point of the task (%d)", r.ID(), len(j.Points), len(task.Points))
			}
			for _, p := range j.Points {
				if p.Max <= 0 || len(p.Capabilities) == 0 {
					t.Errorf("%s: point %s lacks its maximum or its capabilities: %+v", r.ID(), p.Name, p)
				}
			}
		}
	}
}

func TestLowSkillScoresLess(t *testing.T) {
	reqs := expandAll(t, genContexts(t, "1k", 2), expand.Options{}, "")
	var sum float64
	for _, r := range reqs {
		task, _ := TaskByName(r.String("task"))
		reply, ok := Solver{}.Solve(simRequest(t, r), sim.Params{Skill: 0.3, Rand: idRand(r.ID())})
		if !ok {
			t.Fatalf("%s: not recognised", r.ID())
		}
		var g Gold
		r.Decode("gold", &g)
		p, _ := promptOf(r)
		j, err := Score(task, p, reply, &g, false)
		if err != nil {
			t.Fatal(err)
		}
		sum += j.Score
	}
	if mean := sum / float64(len(reqs)); mean > 0.85 || mean < 0.2 {
		t.Errorf("mean score %.3f at skill 0.3", mean)
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}

func idRand(id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(9, h.Sum64()))
}

func TestCorpusContexts(t *testing.T) {
	corpus, err := ReadCorpus("../../samples/lifbench/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ls, _ := ParseLengths("2k")
	enc := tokens.MustGet(tokens.Default)
	err = Generate(GenOptions{Scenarios: Scenarios, Lengths: ls, Corpus: corpus}, func(r *record.Record) error {
		var c Context
		r.Decode("context", &c)
		if c.Source != "corpus" || !strings.Contains(c.Text, "museum") && c.Scenario != MultiDoc {
			t.Errorf("%s: the corpus text is not used", r.ID())
		}
		if got := enc.Count(c.Text); got != c.Tokens || got > c.Budget {
			t.Errorf("%s: %d tokens counted, %d summed, budget %d", r.ID(), got, c.Tokens, c.Budget)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestParseLengths(t *testing.T) {
	ls, err := ParseLengths("4k, 128k,1k,5000,15K,ctx2k")
	if err != nil {
		t.Fatal(err)
	}
	want := []Length{{"4k", 3072}, {"128k", 122880}, {"ctx1k", 1024}, {"ctx5000", 5000}, {"ctx15k", 15360}, {"ctx2k", 2048}}
	if len(ls) != len(want) {
		t.Fatalf("%d lengths, want %d", len(ls), len(want))
	}
	for i, l := range want {
		if ls[i] != l {
			t.Errorf("%d: %+v, want %+v", i, ls[i], l)
		}
	}
	// Reports order lengths by budget: a custom 15 K context comes after the
	// paper's "16k" (13 K) and before "32k" (28 K).
	labels := []string{"32k", "ctx15k", "16k", "ctx1k", "4k", "ctx5000"}
	lengthOrder(labels)
	if got := strings.Join(labels, ","); got != "ctx1k,4k,ctx5000,16k,ctx15k,32k" {
		t.Errorf("order %s", got)
	}
	for _, bad := range []string{"", "x", "512", "4k,4k", "1k,ctx1k", "ctx"} {
		if _, err := ParseLengths(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
