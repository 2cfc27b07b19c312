package ifscale

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ifkit/ifkit/lib/sim"
)

func vocabularies(t *testing.T) map[string][]string {
	vs := map[string][]string{"embedded": DefaultVocab()}
	if dir := referenceDirOrEmpty(); dir != "" {
		v, err := LoadVocab(filepath.Join(dir, "pruned_rules.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != 500 {
			t.Fatalf("pruned_rules.csv: %d terms, want 500", len(v))
		}
		vs["official"] = v
	}
	return vs
}

// referenceRel is ../shared/reference/ifscale seen from this package's
// directory, where go test runs.
var referenceRel = filepath.Join("..", "..", "..", "shared", "reference", "ifscale")

func referenceDirOrEmpty() string {
	if _, err := os.Stat(referenceRel); err != nil {
		return ""
	}
	return referenceRel
}

func solve(t *testing.T, model string, skill float64, kws []string) Detail {
	t.Helper()
	req := &sim.Request{Chat: true, Model: model, Messages: []sim.Message{{Role: "user", Content: Prompt(defaultTask, kws)}}}
	reply, ok := Solver{}.Solve(req, sim.Params{Skill: skill, Rand: rand.New(rand.NewPCG(1, 2))})
	if !ok {
		t.Fatal("the solver did not recognise an IFScale prompt")
	}
	return Judge(reply, kws)
}

// At skill 1 every keyword of every vocabulary is found, in an accepted reply.
func TestSolverFullSkill(t *testing.T) {
	for name, v := range vocabularies(t) {
		d := solve(t, "llm-sim", 1, v)
		if d.Exact != len(v) || d.Rejected != "" {
			t.Errorf("%s: %d of %d exact, rejected %q", name, d.Exact, len(v), d.Rejected)
		}
		d = solve(t, "llm-sim", 1, v[:10])
		if d.Exact != 10 || d.Rejected != "" {
			t.Errorf("%s N=10: %d exact, rejected %q", name, d.Exact, d.Rejected)
		}
	}
}

// The sim's own wording must not match any keyword, or a keyword left out
// would still count.
func TestSolverWordingMatchesNoKeyword(t *testing.T) {
	for name, v := range vocabularies(t) {
		d := Judge(simReport(nil), v)
		if d.Rejected != "" {
			t.Errorf("the bare report would be rejected: %s", d.Rejected)
		}
		for _, k := range d.Keywords {
			if k.Class != "omission" {
				t.Errorf("%s: %q is %s in a reply that has no keyword", name, k.Keyword, k.Class)
			}
		}
	}
}

func TestSolverShapes(t *testing.T) {
	v := DefaultVocab()
	acc := func(model string, n int) float64 {
		d := solve(t, model, 0.2, v[:n])
		return float64(d.Exact) / float64(n)
	}
	if a := acc("sim-threshold", 100); a < 0.99 {
		t.Errorf("threshold at N=100: accuracy %.2f, want ~1 (below the threshold)", a)
	}
	if a := acc("sim-exponential", 100); a > 0.35 {
		t.Errorf("exponential at N=100: accuracy %.2f, want a low floor", a)
	}
	if lin, thr := acc("sim-linear", 500), acc("sim-threshold", 500); lin > 0.35 || thr > 0.35 {
		t.Errorf("at N=500 and skill 0.2 accuracy should be ~0.2: linear %.2f, threshold %.2f", lin, thr)
	}
	if _, ok := (Solver{}).Solve(&sim.Request{Chat: true, Messages: []sim.Message{{Role: "user", Content: "hello"}}}, sim.Params{Skill: 1, Rand: rand.New(rand.NewPCG(1, 2))}); ok {
		t.Error("the solver claimed a prompt that is not IFScale's")
	}
}
