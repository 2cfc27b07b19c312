package eifbench

import (
	"math/rand/v2"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/sim"
)

func simRequest(t *testing.T, body []byte) *sim.Request {
	t.Helper()
	var req expand.ChatRequest
	if err := record.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	r := &sim.Request{Chat: true}
	for _, m := range req.Messages {
		r.Messages = append(r.Messages, sim.Message{Role: m.Role, Content: m.Content})
	}
	return r
}

// runWithSim plays every stage in process, with the sim answering both the
// tasks (at the given skill) and the judge prompts.
func runWithSim(t *testing.T, skill float64, opt GenOptions, jopt judge.Options) []report.Row {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	sc, err := NewScorer(jopt)
	if err != nil {
		t.Fatal(err)
	}
	agg := NewAggregator(aggregate.Options{})
	for _, item := range collect(t, opt) {
		req := expandOne(t, expand.Options{}, item)[0]
		reply, ok := AnswerSolver{}.Solve(simRequest(t, req.Raw("request")), sim.Params{Skill: skill, Rand: rng})
		if !ok {
			t.Fatalf("%s: the sim did not recognise the prompt", item.ID())
		}
		if _, ok := (JudgeSolver{}).Solve(simRequest(t, req.Raw("request")), sim.Params{Skill: skill, Rand: rng}); ok {
			t.Fatalf("%s: the judge solver took a task prompt", item.ID())
		}
		req.Set("model", "sim")
		req.Set("response", record.Response{Text: reply})
		for _, child := range splitAll(t, req) {
			d, err := sc.Prepare(child)
			if err != nil {
				t.Fatal(err)
			}
			j := d.Judgement
			if j == nil {
				verdict, ok := JudgeSolver{}.Solve(simRequest(t, d.Call), sim.Params{Skill: skill, Rand: rng})
				if !ok {
					t.Fatalf("%s: the judge solver did not recognise the judge prompt", child.ID())
				}
				if j, err = sc.Parse(child, verdict); err != nil {
					t.Fatal(err)
				}
			}
			child.Set("judgement", j)
			if err := agg.Add(child); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := agg.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

func TestSimFullSkill(t *testing.T) {
	opts := []GenOptions{{}}
	if path := officialSample(); path != "" {
		opts = append(opts, GenOptions{Official: []string{path}})
	}
	for _, opt := range opts {
		for _, lang := range []string{"en", "zh"} {
			rows := runWithSim(t, 1, opt, judge.Options{Prompt: lang})
			for _, m := range []string{"CLA", "ILA", "task_level"} {
				if r, ok := findRow(rows, "sim", m, map[string]string{"subset": All}, nil); !ok || r.Value != 1 || r.N == 0 {
					t.Errorf("%v, judge prompt %s: %s = %v over %d tasks at skill 1, want 1", opt.Official, lang, m, r.Value, r.N)
				}
			}
		}
	}
}

func TestSimPartialSkill(t *testing.T) {
	rows := runWithSim(t, 0.6, GenOptions{}, judge.Options{})
	value := func(metric string) float64 {
		r, _ := findRow(rows, "sim", metric, map[string]string{"subset": All}, nil)
		return r.Value
	}
	cla, ila, task := value("CLA"), value("ILA"), value("task_level")
	if cla < 0.3 || cla > 0.75 || !(ila < cla) || task != 0 {
		t.Errorf("skill 0.6: CLA %.3f ILA %.3f task %.3f; want CLA near 0.55, ILA below it, task level 0", cla, ila, task)
	}
}
