package eifbench

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// check makes a judged child: verdict "yes"/"no", or "err" for a failed check.
func check(model, parent, subset string, sub, subs, subConstraints, k int, verdict string) *record.Record {
	r := record.New(fmt.Sprintf("%s#%d.%d", parent, sub, k))
	r.Set("bench", Bench)
	r.Set("parent", parent)
	if model != "" {
		r.Set("model", model)
	}
	r.Set("gold", childGold{Subset: subset, Sub: sub, Subs: subs, SubConstraints: subConstraints, ConstraintIndex: k})
	if verdict == "err" {
		r.Fail(&record.Error{Stage: "judge", Kind: "http", Message: "500"})
		return r
	}
	j := record.Judgement{Verdict: verdict, Rubric: Rubric, Judge: &record.JudgeCall{Model: "judge-m"}}
	if verdict == judge.VerdictYes {
		j.Score = 1
	}
	r.Set("judgement", j)
	return r
}

func rowValue(rows []report.Row, model, metric string, dims map[string]string) (float64, int, bool) {
	for _, r := range rows {
		if r.Model != model || r.Metric != metric || len(r.Dims) != len(dims) {
			continue
		}
		match := true
		for k, v := range dims {
			match = match && r.Dims[k] == v
		}
		if match {
			return r.Value, r.N, true
		}
	}
	return 0, 0, false
}

func TestAggregate(t *testing.T) {
	recs := []*record.Record{
		// Task a: sub 1 meets both constraints, sub 2 one of two.
		check("m", "a", PlainText, 1, 2, 2, 1, "yes"), check("m", "a", PlainText, 1, 2, 2, 2, "yes"),
		check("m", "a", PlainText, 2, 2, 2, 1, "yes"), check("m", "a", PlainText, 2, 2, 2, 2, "no"),
		// Task b: three constraints met, the fourth check failed.
		check("m", "b", PlainText, 1, 1, 4, 1, "yes"), check("m", "b", PlainText, 1, 1, 4, 2, "yes"),
		check("m", "b", PlainText, 1, 1, 4, 3, "yes"), check("m", "b", PlainText, 1, 1, 4, 4, "err"),
		// Task c: inference failed, so every check did.
		check("m", "c", Dyadic, 1, 1, 2, 1, "err"), check("m", "c", Dyadic, 1, 1, 2, 2, "err"),
		// A record that lost its model.
		check("", "d", MultiParty, 1, 1, 1, 1, "yes"),
	}
	a := NewAggregator(aggregate.Options{Decimals: 4})
	for _, r := range recs {
		if err := a.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model, metric string
		dims          map[string]string
		want          float64
		n             int
	}{
		// Macro over tasks: CLA (0.75 + 1) / 2, not the pooled 6/7.
		{"m", "CLA", map[string]string{"subset": PlainText}, 0.875, 2},
		{"m", "ILA", map[string]string{"subset": PlainText}, 0.75, 2},
		{"m", "task_level", map[string]string{"subset": PlainText}, 0.5, 2},
		{"m", "failed_checks", map[string]string{"subset": PlainText}, 1, 8},
		{"m", "CLA", map[string]string{"subset": Dyadic}, math.NaN(), 0},
		{"m", "failed_checks", map[string]string{"subset": Dyadic}, 2, 2},
		{"m", "CLA", map[string]string{"subset": All}, 0.875, 2},
		{"m", "failed_checks", map[string]string{"subset": All}, 3, 10},
		{"unknown", "CLA", map[string]string{"subset": MultiParty}, 1, 1},
		{"m", "ILA", map[string]string{"subset": PlainText, "sub_instructions": "2"}, 0.5, 1},
		{"m", "task_level", map[string]string{"subset": PlainText, "sub_instructions": "1"}, 1, 1},
		{"m", "CLA", map[string]string{"subset": PlainText, "constraints_per_sub": "2"}, 0.75, 2},
		{"m", "ILA", map[string]string{"subset": PlainText, "constraints_per_sub": "2"}, 0.5, 2},
		{"m", "CLA", map[string]string{"subset": PlainText, "constraints_per_sub": "4"}, 1, 1},
	}
	for _, tc := range tests {
		v, n, ok := rowValue(res.Rows, tc.model, tc.metric, tc.dims)
		if !ok {
			t.Errorf("no row %s %s %v", tc.model, tc.metric, tc.dims)
			continue
		}
		if n != tc.n || !(v == tc.want || math.IsNaN(v) && math.IsNaN(tc.want)) {
			t.Errorf("%s %s %v = %v (n %d), want %v (n %d)", tc.model, tc.metric, tc.dims, v, n, tc.want, tc.n)
		}
	}
	if _, _, ok := rowValue(res.Rows, "m", "task_level", map[string]string{"subset": PlainText, "constraints_per_sub": "2"}); ok {
		t.Error("a task level per constraint count was reported")
	}
	t4 := res.Tables[0]
	if strings.Join(t4.Columns, "|") != "Model|Plain Text ILA|Plain Text CLA|Dyadic Dialogue ILA|Dyadic Dialogue CLA|Multi-party Dialogue ILA|Multi-party Dialogue CLA" {
		t.Errorf("Table 4 columns: %v", t4.Columns)
	}
	if strings.Join(t4.Rows[0], "|") != "m|0.7500|0.8750|nan|nan|nan|nan" {
		t.Errorf("Table 4 row: %v", t4.Rows[0])
	}
	if !strings.Contains(strings.Join(t4.Notes, " "), "judge-m") {
		t.Errorf("notes do not name the judge model: %v", t4.Notes)
	}
}

func TestAggregateRejects(t *testing.T) {
	unsplit := record.New("x")
	unsplit.Set("bench", Bench)
	unjudged := check("m", "a", PlainText, 1, 1, 1, 1, "yes")
	unjudged.Delete("judgement")
	for name, r := range map[string]*record.Record{"unsplit": unsplit, "unjudged": unjudged} {
		if err := NewAggregator(aggregate.Options{}).Add(r); err == nil {
			t.Errorf("%s record accepted", name)
		}
	}
	a := NewAggregator(aggregate.Options{})
	dup := check("m", "a", PlainText, 1, 1, 1, 1, "yes")
	if err := a.Add(dup); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(dup); err == nil {
		t.Error("the same check was accepted twice")
	}
}
