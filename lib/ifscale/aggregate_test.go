package ifscale

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/pandas"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/testbin"
)

// judged runs the scorer on a reply, as judge does.
func judged(t *testing.T, id, model, reply string, kws []string, latencyMS float64) *record.Record {
	t.Helper()
	r := record.New(id)
	r.Set("bench", Bench)
	r.Set("model", model)
	r.Set("group", map[string]string{"density": "3", "seed": id})
	r.Set("gold", Gold{Keywords: kws})
	r.Set("response", record.Response{Text: reply, LatencyMS: latencyMS})
	d, err := scorer{}.Prepare(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Set("judgement", d.Judgement)
	return r
}

// A failed sample is left out under both --failed policies, as the official
// runner leaves it out (runner.py process_model_task returns before
// write_result when every attempt failed), and counted in n_failed.
func TestAggregator(t *testing.T) {
	for _, policy := range []string{aggregate.FailedOfficial, aggregate.FailedExclude} {
		t.Run(policy, func(t *testing.T) { testAggregator(t, aggregate.Options{Decimals: 3, Failed: policy}) })
	}
}

func testAggregator(t *testing.T, opt aggregate.Options) {
	kws := []string{"debt", "equity", "margin"}
	pad := strings.Repeat(" and so on", 20)
	recs := []*record.Record{
		judged(t, "0", "m", "debt equity margin"+pad, kws, 2000), // 100 %
		judged(t, "1", "m", "debts equity"+pad, kws, 4000),       // 1/3: a modification and an omission
		judged(t, "2", "m", "debt, equity, margin", kws, 1000),   // rejected: too short (100 % if counted)
	}
	failed := record.New("3")
	failed.Set("bench", Bench)
	failed.Set("request", map[string]any{"model": "m"})
	failed.Set("group", map[string]string{"density": "3", "seed": "3"})
	failed.Set("error", record.Error{Stage: "infer-batch", Kind: "http", Status: 500, Message: "boom"})
	recs = append(recs, failed)
	a := NewAggregator(opt)
	for _, r := range recs {
		if err := a.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	n := map[string]int{}
	for _, r := range res.Rows {
		if r.Model != "m" || r.Nums["density"] != 3 || r.NFailed != 1 || r.Unit == "" {
			t.Fatalf("row %+v", r)
		}
		got[r.Metric], n[r.Metric] = r.Value, r.N
	}
	third := float64(1) / 3 * 100
	want := map[string]float64{
		"accuracy":             (100 + third) / 2,
		"omission_share":       25, // (0 + 50) / 2
		"modification_share":   25,
		"om_ratio":             1,
		"primacy_ratio":        1, // seed 0 has no early error (NaN, skipped); seed 1: 1 late / 1 early
		"latency_s":            3,
		"accuracy_per_latency": (100 + third) / 2 / 3,
		"accuracy_all":         (100 + third + 100) / 3,
		"rejected":             1,
	}
	for m, w := range want {
		if math.Abs(got[m]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", m, got[m], w)
		}
	}
	if n["accuracy"] != 2 || n["accuracy_all"] != 3 {
		t.Errorf("accuracy over %d replies and accuracy_all over %d, want 2 and 3", n["accuracy"], n["accuracy_all"])
	}
	if s := pandas.Std([]float64{100, third}); math.Abs(got["stdev"]-s) > 1e-12 {
		t.Errorf("stdev = %v, want %v", got["stdev"], s)
	}
}

func TestAggregatorNeedsJudgement(t *testing.T) {
	r := record.New("x")
	r.Set("bench", Bench)
	r.Set("group", map[string]string{"density": "3", "seed": "0"})
	if err := NewAggregator(aggOpts).Add(r); err == nil || !strings.Contains(err.Error(), "run judge") {
		t.Errorf("got %v", err)
	}
}

// The published sums follow pandas' rounding, which depends on the order of
// the terms: Reduce takes each group in seed order (then record id), so
// samples in any order give the same bits.
func TestReduceIgnoresSampleOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var samples []Sample
	for _, n := range []int{10, 30, 70} {
		for seed := range 5 {
			for id := range 2 {
				classes := make([]Class, n)
				for i := range classes {
					classes[i] = Class(r.IntN(3))
				}
				s := SampleOf(classes)
				s.Model, s.N, s.Seed, s.ID, s.Latency = "m", n, strconv.Itoa(seed), fmt.Sprintf("r%d-%d", seed, id), r.Float64()*30
				samples = append(samples, s)
			}
		}
	}
	want := fmt.Sprintf("%v", Reduce(samples, nil))
	for p, other := range testbin.Orders(samples, 6) {
		if got := fmt.Sprintf("%v", Reduce(other, nil)); got != want {
			t.Fatalf("order %d (0 is reversed):\n%s\nwant\n%s", p, got, want)
		}
	}
}

// The headline table shows the densities that were run: 200 asked beside
// 10, 50 and 100 is a column, not dropped for not being one of the paper's
// five; a sweep too wide for one table keeps the paper's five and its ends,
// and says where the others are.
func TestHeadlineShowsTheDensitiesRun(t *testing.T) {
	kws := []string{"debt", "equity", "margin"}
	pad := strings.Repeat(" and so on", 20)
	for _, tc := range []struct {
		densities []int
		want      string
		note      bool
	}{
		{[]int{10, 50, 100, 200}, "model N=10 N=50 N=100 N=200 failed", false},
		{[]int{3, 7}, "model N=3 N=7 failed", false},
		{[]int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 250, 500}, "model N=10 N=50 N=100 N=250 N=500 failed", true},
		{[]int{5, 20, 30, 40, 60, 70, 80, 90, 100, 700}, "model N=5 N=100 N=700 failed", true},
	} {
		a := NewAggregator(aggregate.Options{Decimals: 1})
		for _, n := range tc.densities {
			r := judged(t, strconv.Itoa(n), "m", "debt equity margin"+pad, kws, 1000)
			r.Set("group", map[string]string{"density": strconv.Itoa(n), "seed": "0"})
			if err := a.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		res, err := a.Result()
		if err != nil {
			t.Fatal(err)
		}
		head := Tables(res.Rows, aggregate.TableOptions{Decimals: 1})[0]
		if got := strings.Join(head.Columns, " "); got != tc.want {
			t.Errorf("densities %v: columns %q, want %q", tc.densities, got, tc.want)
		}
		said := strings.Contains(strings.Join(head.Notes, " "), fmt.Sprintf("%d densities were run", len(tc.densities)))
		if said != tc.note {
			t.Errorf("densities %v: note about the densities left out = %v, want %v (%q)", tc.densities, said, tc.note, head.Notes)
		}
	}
}
