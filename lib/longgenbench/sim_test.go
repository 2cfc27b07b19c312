package longgenbench

import (
	"math/rand/v2"
	"testing"

	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// simulate has w write the document for a generated item at the given skill
// and judges its checks with the simulated judge (at full skill).
func simulate(t *testing.T, w WriterSolver, item *record.Record, skill float64, seed uint64) (found, number, yes, checks int) {
	t.Helper()
	var out []*record.Record
	e, _ := NewExpander(expandOptions(), false)
	if err := e.Expand(item, func(r *record.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var req Request
	if err := out[0].Decode("request", &req); err != nil {
		t.Fatal(err)
	}
	text, ok := w.Solve(&sim.Request{Prompt: req.Prompt, MaxTokens: req.MaxTokens}, sim.Params{Skill: skill, Rand: rand.New(rand.NewPCG(seed, 1))})
	if !ok {
		t.Fatalf("%s: the simulator did not recognise the prompt", item.ID())
	}
	resp := out[0]
	resp.Set("response", record.Response{Text: text, FinishReason: "stop"})
	kids, err := splitAll(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	s := newScorer(t, judge.Options{})
	for _, k := range kids {
		c := decode[Counts](t, k, "split")
		found, number = c.Found, c.Number
		d, err := s.Prepare(k)
		if err != nil {
			t.Fatal(err)
		}
		checks++
		if d.Call == nil {
			continue // missing
		}
		var body struct{ Messages []sim.Message }
		if err := record.Unmarshal(d.Call, &body); err != nil {
			t.Fatal(err)
		}
		reply, ok := JudgeSolver{}.Solve(&sim.Request{Chat: true, Messages: body.Messages}, sim.Params{Skill: 1, Rand: rand.New(rand.NewPCG(seed, 2))})
		if !ok {
			t.Fatal("the simulated judge did not recognise the judge prompt")
		}
		j, err := s.Parse(k, reply)
		if err != nil {
			t.Fatal(err)
		}
		if j.Verdict == judge.VerdictYes {
			yes++
		}
	}
	return
}

// At skill 1 the simulated model writes every entry with every event in
// place: CR 1 and STIC-2 1, in both versions and all four scenarios.
func TestSimFullSkill(t *testing.T) {
	for _, v := range []string{Short, Long} {
		for _, item := range generate(t, GenOptions{Version: v, Count: 1, Seed: 5}) {
			found, number, yes, checks := simulate(t, WriterSolver{}, item, 1, 9)
			if found != number || yes != checks {
				t.Errorf("%s: entries %d/%d, checks %d/%d", item.ID(), found, number, yes, checks)
			}
		}
	}
}

// llm-sim --stop-rate 1: every document stops early, even at skill 1, and
// the checks past the stop are missing.
func TestSimStopRate(t *testing.T) {
	for i, item := range generate(t, GenOptions{Version: Short, Count: 1, Seed: 5}) {
		found, number, yes, checks := simulate(t, WriterSolver{StopRate: 1}, item, 1, uint64(i))
		if found >= number || found < number/4 || yes > checks {
			t.Errorf("%s: entries %d/%d, checks %d/%d", item.ID(), found, number, yes, checks)
		}
	}
}

func TestSimLowerSkillDegrades(t *testing.T) {
	var found, number, yes, checks int
	for i, item := range generate(t, GenOptions{Version: Short, Count: 5, Seed: 5}) {
		f, n, y, c := simulate(t, WriterSolver{}, item, 0.6, uint64(i))
		found, number, yes, checks = found+f, number+n, yes+y, checks+c
	}
	if found == number || yes == checks || yes == 0 {
		t.Errorf("skill 0.6: entries %d/%d, checks %d/%d", found, number, yes, checks)
	}
}

func TestSimJudgeSkill(t *testing.T) {
	req := &sim.Request{Chat: true, Messages: []sim.Message{{Role: "user", Content: JudgePrompt(Prompt3Shot, "aerial gym", "Floor 34: an aerial gym")}}}
	wrong := 0
	for i := range 200 {
		reply, _ := JudgeSolver{}.Solve(req, sim.Params{Skill: 0.7, Rand: rand.New(rand.NewPCG(uint64(i), 0))})
		if reply != "Yes" {
			wrong++
		}
	}
	if wrong < 30 || wrong > 90 {
		t.Errorf("judge at skill 0.7 was wrong %d times in 200", wrong)
	}
	if _, ok := (WriterSolver{}).Solve(&sim.Request{Prompt: "Write a poem."}, sim.Params{Skill: 1, Rand: rand.New(rand.NewPCG(1, 1))}); ok {
		t.Error("the writer answered a prompt that is not LongGenBench's")
	}
}
