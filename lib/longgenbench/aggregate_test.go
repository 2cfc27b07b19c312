package longgenbench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
)

// checkSeq numbers the children judged makes: two checks of one type and
// entry are two records.
var checkSeq int

// judged makes a judged child of parent.
func judged(parent, model, check string, entry int, verdict string, counts Counts) *record.Record {
	checkSeq++
	rec := record.New(fmt.Sprintf("%s#%s-%d-%d", parent, check, entry, checkSeq))
	rec.Set("parent", parent)
	rec.Set("bench", Bench)
	if model != "" {
		rec.Set("model", model)
	}
	rec.Set("group", map[string]string{"version": Short})
	rec.Set("gold", CheckGold{Check: check, Entry: entry, Event: "e", Label: "Floor"})
	rec.Set("split", counts)
	j := &record.Judgement{Verdict: verdict, Rubric: "test", Detail: map[string]any{"mode": judge.ModeLLM}, Judge: &record.JudgeCall{Model: "judge-m"}}
	if verdict == judge.VerdictYes {
		j.Score = 1
	}
	rec.Set("judgement", j)
	return rec
}

func result(t *testing.T, recs ...*record.Record) *aggregate.Result {
	t.Helper()
	return resultWith(t, aggregate.Options{Decimals: 2}, recs...)
}

func resultWith(t *testing.T, opt aggregate.Options, recs ...*record.Record) *aggregate.Result {
	t.Helper()
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
	return res
}

func value(t *testing.T, res *aggregate.Result, metric string, dims ...string) report.Row {
	t.Helper()
next:
	for _, r := range res.Rows {
		if r.Metric != metric {
			continue
		}
		for i := 0; i+1 < len(dims); i += 2 {
			if r.Dims[dims[i]] != dims[i+1] {
				continue next
			}
		}
		return r
	}
	t.Fatalf("no %s row with %v", metric, dims)
	return report.Row{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The paper's appendix E.2: a 3-floor building; floor 1 must have a coffee
// shop and a reception desk, every floor a washroom. The output "floor1:
// coffee shop, washroom; floor2: washroom" gives CR 2/3, STIC-1 3/4 and
// STIC-2 3/5.
func TestAppendixE2(t *testing.T) {
	c := Counts{Number: 3, Found: 2, Checks: 5}
	res := result(t,
		judged("b", "m", Single, 1, judge.VerdictYes, c),       // coffee shop
		judged("b", "m", Single, 1, judge.VerdictNo, c),        // reception desk
		judged("b", "m", Periodic, 1, judge.VerdictYes, c),     // washroom, floor 1
		judged("b", "m", Periodic, 2, judge.VerdictYes, c),     // washroom, floor 2
		judged("b", "m", Periodic, 3, judge.VerdictMissing, c), // floor 3 was never written
	)
	for metric, want := range map[string]float64{"CR": 200.0 / 3, "STIC-1": 75, "STIC-2": 60, "wAvg": 40} {
		if r := value(t, res, metric); !near(r.Value, want) || r.Model != "m" || r.Dims["version"] != Short {
			t.Errorf("%s = %+v, want %v", metric, r, want)
		}
	}
	if r := value(t, res, "accuracy", "type", Single); !near(r.Value, 0.5) || r.N != 2 {
		t.Errorf("single accuracy %+v", r)
	}
	if r := value(t, res, "accuracy", "type", Periodic); !near(r.Value, 1) || r.N != 2 {
		t.Errorf("periodic accuracy (missing excluded) %+v", r)
	}
	// The official eval.py: correct / total if total > 0 else 0.
	if r := value(t, res, "accuracy", "type", Range); r.Value != 0 || r.N != 0 {
		t.Errorf("range accuracy with no range checks %+v; want 0 as official", r)
	}
	if r := value(t, res, "accuracy", "type", "average"); !near(r.Value, 0.5) {
		t.Errorf("average accuracy %+v; want (0.5 + 0 + 1) / 3", r)
	}
	// Entries sit at their midpoints: 1/3 in 10-20%, 3/3 in 80-90%.
	if r := value(t, res, "accuracy", "type", "all", "position_range", "80-90%"); !math.IsNaN(r.Value) || r.N != 0 {
		t.Errorf("position of a missing entry %+v", r)
	}
	if r := value(t, res, "accuracy", "position_range", "10-20%", "type", "all"); !near(r.Value, 2.0/3) || r.N != 3 || r.Nums["position"] != 0.1 || r.Unit != "ratio" {
		t.Errorf("entry 1 %+v", r)
	}
	if got := value(t, res, "CR").Dims["judge"]; got != "llm (judge-m)" {
		t.Errorf("judge label %q", got)
	}
}

func TestAggregatePerModelAndWords(t *testing.T) {
	long := Counts{Number: 52, Found: 52, Blocks: 53, Words: 9000, Checks: 1}
	short := Counts{Number: 52, Found: 26, Blocks: 27, Words: 1500, Checks: 1} // fails the official word rule
	failed := Counts{Number: 52, Error: []byte(`{"stage":"infer-batch","kind":"timeout","message":"x"}`), Checks: 1}
	res := result(t,
		judged("a", "m1", Single, 5, judge.VerdictYes, long),
		judged("b", "m1", Single, 5, judge.VerdictNo, short),
		judged("c", "m1", Single, 5, judge.VerdictMissing, failed),
		judged("d", "m2", Single, 5, judge.VerdictYes, long),
	)
	if r := value(t, res, "CR"); r.Model != "m1" || !near(r.Value, 50) || r.N != 3 {
		t.Errorf("m1 CR %+v", r)
	}
	if r := value(t, res, "words"); !near(r.Value, 9000) || r.N != 1 {
		t.Errorf("m1 words %+v", r)
	}
	if r := value(t, res, "STIC-2"); !near(r.Value, 100.0/3) {
		t.Errorf("m1 STIC-2 %+v", r)
	}
	md := tables(res)[0].Rows
	if len(md) != 2 || md[0][0] != "m1" || md[0][11] != "1" || md[1][0] != "m2" {
		t.Errorf("table rows %q", md)
	}
}

// A record whose inference failed: --failed official scores it as an empty
// output (CR 0, its checks missing, so they count against STIC-2 but not
// STIC-1), as the official eval.py scores whatever output_blocks the runner
// stored; exclude leaves it out. Both count it in n_failed.
func TestAggregateFailedPolicy(t *testing.T) {
	ok := Counts{Number: 2, Found: 2, Checks: 2}
	failed := Counts{Number: 2, Error: []byte(`{"stage":"infer-batch","kind":"timeout","message":"x"}`), Checks: 2}
	recs := func() []*record.Record {
		return []*record.Record{
			judged("a", "m", Single, 1, judge.VerdictYes, ok), judged("a", "m", Single, 2, judge.VerdictNo, ok),
			judged("b", "m", Single, 1, judge.VerdictMissing, failed), judged("b", "m", Single, 2, judge.VerdictMissing, failed),
		}
	}
	for _, tc := range []struct {
		policy                    string
		cr, stic1, stic2          float64
		records, checks, nfailRec int
	}{
		{aggregate.FailedOfficial, 50, 50, 25, 2, 4, 1},
		{aggregate.FailedExclude, 100, 50, 50, 1, 2, 1},
	} {
		res := resultWith(t, aggregate.Options{Decimals: 2, Failed: tc.policy}, recs()...)
		cr, s1, s2 := value(t, res, "CR"), value(t, res, "STIC-1"), value(t, res, "STIC-2")
		if !near(cr.Value, tc.cr) || cr.N != tc.records || cr.NFailed != tc.nfailRec || cr.Unit != "percent" {
			t.Errorf("--failed %s: CR %+v, want %v over %d records, n_failed %d", tc.policy, cr, tc.cr, tc.records, tc.nfailRec)
		}
		if !near(s1.Value, tc.stic1) || !near(s2.Value, tc.stic2) || s2.N != tc.checks || s2.NFailed != 2 {
			t.Errorf("--failed %s: STIC-1 %+v, STIC-2 %+v; want %v and %v over %d checks, 2 failed", tc.policy, s1, s2, tc.stic1, tc.stic2, tc.checks)
		}
		if acc := value(t, res, "accuracy", "type", Single); acc.NFailed != 2 || acc.Unit != "ratio" {
			t.Errorf("--failed %s: single accuracy %+v, want n_failed 2", tc.policy, acc)
		}
	}
}

func TestAggregateCountsFailures(t *testing.T) {
	c := Counts{Number: 3, Found: 3, Checks: 2}
	judgeFailed := judged("p", "m", Range, 2, judge.VerdictYes, c)
	judgeFailed.Delete("judgement")
	judgeFailed.Set("error", record.Error{Stage: "judge", Kind: "http", Message: "500"})
	unsplit := record.New("q")
	unsplit.Set("bench", Bench)
	unsplit.Set("error", record.Error{Stage: "expand-templates", Kind: "x", Message: "y"})
	res := result(t, judged("p", "m", Range, 1, judge.VerdictYes, c), judgeFailed, unsplit)
	if r := value(t, res, "STIC-2"); !near(r.Value, 100) || r.N != 1 {
		t.Errorf("STIC-2 %+v (a failed judge call is left out)", r)
	}
	if row := tables(res)[0].Rows[0]; row[13] != "1" {
		t.Errorf("judge failed column %q", row)
	}
	if notes := strings.Join(tables(res)[0].Notes, "\n"); !strings.Contains(notes, "unknown: 1 records failed before split-subtasks") {
		t.Errorf("notes:\n%s", notes)
	}
	a := NewAggregator(aggregate.Options{})
	plain := record.New("z")
	plain.Set("bench", Bench)
	if err := a.Add(plain); err == nil {
		t.Error("an unsplit record was aggregated")
	}
}

// A record that failed before infer-batch passes through it without a model:
// its checks count for the only model of the version, else stay "unknown".
func TestAggregateAttributesModelless(t *testing.T) {
	ok := Counts{Number: 3, Found: 3, Checks: 1}
	failed := Counts{Number: 3, Error: []byte(`{"stage":"infer-batch","kind":"server_error","message":"x"}`), Checks: 1}
	res := result(t, judged("a", "m1", Single, 1, judge.VerdictYes, ok), judged("b", "", Single, 1, judge.VerdictMissing, failed))
	if r := value(t, res, "CR"); r.Model != "m1" || !near(r.Value, 50) || r.N != 2 || len(tables(res)[0].Rows) != 1 {
		t.Errorf("one model: %+v, %d rows", r, len(tables(res)[0].Rows))
	}
	res = result(t, judged("a", "m1", Single, 1, judge.VerdictYes, ok), judged("c", "m2", Single, 1, judge.VerdictYes, ok),
		judged("b", "", Single, 1, judge.VerdictMissing, failed))
	if rows := tables(res)[0].Rows; len(rows) != 3 || rows[2][0] != "unknown" {
		t.Errorf("two models: %q", rows)
	}
}

// Entries read by split-subtasks --rubric strict are not the official CR:
// the report says so, and says when a run mixes the two readings.
func TestAggregateNotesStrictEntries(t *testing.T) {
	official := Counts{Number: 52, Found: 52, Blocks: 53, Words: 9000, Checks: 1}
	strict := official
	strict.Entries = "strict"
	for _, tc := range []struct {
		name string
		recs []*record.Record
		want string
	}{
		{"official", []*record.Record{judged("a", "m", Single, 5, judge.VerdictYes, official)}, ""},
		{"strict", []*record.Record{judged("a", "m", Single, 5, judge.VerdictYes, strict)}, "entries: read with split-subtasks --rubric strict"},
		{"mixed", []*record.Record{judged("a", "m", Single, 5, judge.VerdictYes, strict), judged("b", "m", Single, 5, judge.VerdictYes, official)}, "entries: 1 checks were split with split-subtasks --rubric strict and 1 with the official regex"},
	} {
		notes := strings.Join(tables(result(t, tc.recs...))[0].Notes, "\n")
		if got := strings.Contains(notes, "entries: "); got != (tc.want != "") || tc.want != "" && !strings.Contains(notes, tc.want) {
			t.Errorf("%s: notes %q; want %q", tc.name, notes, tc.want)
		}
	}
}

// An entry number of more than 4,300 digits stops the official eval.py
// (int() raises ValueError on Python 3.10.7+): split-subtasks counts such
// pieces and the report says how many outputs had one.
func TestAggregateNotesOverLimit(t *testing.T) {
	kids, err := splitAll(t, checksRecord(t, " lobby\n#*# Floor "+strings.Repeat("2", pystr.IntMaxStrDigits+1)+": offices", map[string]any{"model": "m"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		if c := decode[Counts](t, k, "split"); c.OverLimit != 1 || c.Found != 1 {
			t.Fatalf("%s: counts %+v; want one piece over the limit, one entry found", k.ID(), c)
		}
		k.Set("judgement", record.Judgement{Verdict: judge.VerdictMissing, Rubric: "test"})
	}
	notes := strings.Join(tables(result(t, kids...))[0].Notes, "\n")
	if !strings.Contains(notes, "Outputs with a piece whose entry number has more than 4300 digits: 1.") {
		t.Errorf("notes %q do not count the output the official evaluator cannot read", notes)
	}
}

// tables lays a result out as aggregate-ifs does.
func tables(res *aggregate.Result) []report.Table {
	return aggregate.Lay(Tables, res, aggregate.TableOptions{Decimals: 2, Failed: aggregate.FailedOfficial})
}

// aggregate-ifs gives each judge's verdicts an aggregator of their own, so
// one check twice here is one judge's verdict twice: it is refused, not
// counted twice.
func TestAggregateRefusesACheckTwice(t *testing.T) {
	c := Counts{Number: 1, Found: 1, Checks: 1}
	rec := judged("p", "m", Single, 1, judge.VerdictYes, c)
	a := NewAggregator(aggregate.Options{})
	if err := a.Add(rec); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(rec.Clone()); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("the second verdict of one check: %v", err)
	}
}

// Every metric of the main table prints its interval, the mean words too.
func TestTablesPrintEveryInterval(t *testing.T) {
	long := Counts{Number: 52, Found: 52, Blocks: 53, Words: 9000, Checks: 1}
	res := result(t, judged("a", "m1", Single, 5, judge.VerdictYes, long))
	for i := range res.Rows {
		lo, hi := res.Rows[i].Value-1, res.Rows[i].Value+1
		res.Rows[i].CILow, res.Rows[i].CIHigh = &lo, &hi
	}
	main := tables(res)[0]
	words := main.Rows[0][slices.Index(main.Columns, "words")]
	if words != "9000 [8999, 9001]" {
		t.Errorf("words cell %q, want its interval", words)
	}
}
