package longins

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/tokens"
)

func TestPredicted(t *testing.T) {
	big := strings.Repeat("7", pystr.IntMaxStrDigits+1)
	cases := []struct {
		reply     string
		want      []string
		overLimit int // numbers eval.py's int() refuses on Python 3.10.7+
	}{
		{"[3, 17]", []string{"3", "17"}, 0},
		{"The wrong ones are [3] and [17, 3].", []string{"3", "17"}, 0},
		{"[]", nil, 0},
		{"no brackets 3, 4", nil, 0},
		{"[Question 12]", []string{"12"}, 0}, // any bracketed text counts, as in eval.py
		{"[3\n, 4] [5]", []string{"5"}, 0},   // "." does not cross a line break
		{"[[3] 4]", []string{"3"}, 0},        // non-greedy: the first "]" closes
		{"[007, 0]", []string{"7", "0"}, 0},  // int("007") == 7
		{"[٣, ١٢]", []string{"3", "12"}, 0},  // Python's \d and int() take Arabic-Indic digits
		{"[3.5]", []string{"3", "5"}, 0},     // \d+ finds both runs
		{"[99999999999999999999999]", []string{"99999999999999999999999"}, 0},
		{"[" + strings.Repeat("7", pystr.IntMaxStrDigits) + "]", []string{strings.Repeat("7", pystr.IntMaxStrDigits)}, 0},
		{"[3, " + big + "] [" + big + "]", []string{"3", big}, 2},
		{"[" + strings.Repeat("0", pystr.IntMaxStrDigits) + "1]", []string{"1"}, 1}, // leading zeros count
		{"[" + strings.Repeat("٣", pystr.IntMaxStrDigits+1) + "]", []string{strings.Repeat("3", pystr.IntMaxStrDigits+1)}, 1},
	}
	for _, c := range cases {
		got, over := Predicted(c.reply)
		if !slices.Equal(got, c.want) || over != c.overLimit {
			t.Errorf("Predicted(%.40q) = %.40q, %d over the limit; want %.40q, %d", c.reply, got, over, c.want, c.overLimit)
		}
	}
}

func TestF1(t *testing.T) {
	cases := []struct {
		pred []string
		gold []int
		want float64
	}{
		{[]string{"3", "17"}, []int{3, 17}, 1},
		{[]string{"3"}, []int{3, 17}, 2 * 1 * 0.5 / 1.5},
		{[]string{"3", "4"}, []int{3}, 2 * 0.5 * 1 / 1.5},
		{nil, []int{3}, 0},
		{[]string{"3"}, nil, 0}, // empty gold: 0, as official
		{nil, nil, 0},
		{[]string{"5"}, []int{3}, 0},
	}
	for _, c := range cases {
		if got, _ := F1(c.pred, c.gold); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("F1(%v, %v) = %v, want %v", c.pred, c.gold, got, c.want)
		}
	}
}

func generate(t *testing.T, opt GenOptions) []*record.Record {
	t.Helper()
	var recs []*record.Record
	if err := Generate(opt, func(r *record.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestGenerate(t *testing.T) {
	recs := generate(t, GenOptions{Lengths: []int{256, 2048}, Modes: Modes, ErrorRate: 0.1, Seed: 7})
	tasks := len(DefaultTasks())
	enc := tokens.MustGet(Tokenizer)
	if len(recs) != 3*2*tasks {
		t.Fatalf("%d exams, want %d", len(recs), 3*2*tasks)
	}
	ids := map[string]bool{}
	for _, r := range recs {
		if ids[r.ID()] {
			t.Fatalf("duplicate id %s", r.ID())
		}
		ids[r.ID()] = true
		var c Context
		var g Gold
		var group map[string]string
		if err := r.Decode("context", &c); err != nil {
			t.Fatal(err)
		}
		r.Decode("gold", &g)
		r.Decode("group", &group)
		length, _ := strconv.Atoi(group["length"])
		if c.Tokens > length || c.Tokens < length*8/10 {
			t.Errorf("%s: %d tokens for a %d-token exam", r.ID(), c.Tokens, length)
		}
		if n := enc.Count(c.Data); n != c.Tokens {
			t.Errorf("%s: the exam counts %d tokens, the record says %d", r.ID(), n, c.Tokens)
		}
		if len(g.Wrong) == 0 || len(g.Wrong) != len(g.Depths) {
			t.Errorf("%s: wrong %v depths %v", r.ID(), g.Wrong, g.Depths)
		}
		for i, w := range g.Wrong {
			if i < len(g.Depths) && g.Depths[i] != w*10/g.Questions {
				t.Errorf("%s: wrong question %d of %d has depth %d, want its tenth %d", r.ID(), w, g.Questions, g.Depths[i], w*10/g.Questions)
			}
		}
		if want := max(1, int(math.Round(0.1*float64(g.Questions)))); len(g.Wrong) > want || len(g.Wrong) < want-1 {
			t.Errorf("%s: %d wrong answers among %d questions", r.ID(), len(g.Wrong), g.Questions)
		}
		if n := strings.Count(c.Data, "\n\n"); n != g.Questions {
			t.Errorf("%s: %d questions in data, gold says %d", r.ID(), n, g.Questions)
		}
		// Every wrong answer is really wrong, every other one right.
		qs, ok := ParsePrompt(Prompt(c))
		if !ok || len(qs) != g.Questions {
			t.Fatalf("%s: the prompt does not parse back (%d questions)", r.ID(), len(qs))
		}
		for _, q := range qs {
			check := checkerByDefinition()[q.Instruction]
			right, _ := check(q.Input)
			if isWrong := slices.Contains(g.Wrong, q.ID); isWrong != (right != q.Given) {
				t.Errorf("%s: question %d (%q → %q, right %q) marked wrong=%v", r.ID(), q.ID, q.Input, q.Given, right, isWrong)
			}
		}
	}
	again := generate(t, GenOptions{Lengths: []int{256, 2048}, Modes: Modes, ErrorRate: 0.1, Seed: 7})
	for i := range recs {
		if string(recs[i].AppendJSON(nil)) != string(again[i].AppendJSON(nil)) {
			t.Fatalf("generation is not deterministic at %s", recs[i].ID())
		}
	}
}

// With a model's own tokenizer.json the exams fit their lengths by its count
// of the whole text (it may merge across the parts the o200k counter adds).
func TestGenerateWithTokenizerFile(t *testing.T) {
	const file = "../tokens/testdata/tiny-sentencepiece.json"
	enc := tokens.MustGet(file)
	for _, r := range generate(t, GenOptions{Lengths: []int{512, 2048}, Modes: Modes, ErrorRate: 0.1, Seed: 7, Tokenizer: file}) {
		var c Context
		var group map[string]string
		if err := r.Decode("context", &c); err != nil {
			t.Fatal(err)
		}
		r.Decode("group", &group)
		length, _ := strconv.Atoi(group["length"])
		n := enc.Count(c.Data)
		if c.Tokenizer != enc.Name || n != c.Tokens || n > length || n < length*7/10 {
			t.Errorf("%s: %s counts %d tokens, the record says %d by %s, length %d", r.ID(), enc.Name, n, c.Tokens, c.Tokenizer, length)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	one := []Task{{Name: "t", Definition: "d", Instances: []Instance{{Input: "a", Output: "1"}, {Input: "b", Output: "2"}}}}
	same := []Task{{Name: "same", Definition: "d", Instances: []Instance{{Input: "a", Output: "1"}, {Input: "b", Output: "1"}}}}
	// b accepts 1 as well as 2: no answer of the task is wrong for it.
	lenient := []Task{{Name: "lenient", Definition: "d", Instances: []Instance{{Input: "a", Output: "1"}, {Input: "b", Output: "2", Accepted: []string{"2", "1"}}}}}
	empty := []Task{{Name: "empty", Definition: "d"}}
	cases := []struct {
		opt  GenOptions
		want string
	}{
		{GenOptions{Lengths: []int{256}, Modes: []string{GIST}, ErrorRate: 0}, "every exam needs wrong answers"},
		{GenOptions{Lengths: []int{256}, Modes: []string{"gist2"}, ErrorRate: 0.1}, "mode"},
		{GenOptions{Lengths: []int{256}, Modes: []string{LIMT}, ErrorRate: 0.1, Tasks: one}, "at least two"},
		{GenOptions{Lengths: []int{256}, Modes: []string{GIST}, ErrorRate: 0.1, Tasks: same}, "accepts the answers of all the others"},
		{GenOptions{Lengths: []int{256}, Modes: []string{GIST}, ErrorRate: 0.1, Tasks: lenient}, "instance 1 of task \"lenient\""},
		{GenOptions{Lengths: []int{256}, Modes: []string{GIST}, ErrorRate: 0.1, Tasks: empty}, "no instances"},
		{GenOptions{Lengths: []int{-1}, Modes: []string{GIST}, ErrorRate: 0.1}, "positive"},
	}
	for _, c := range cases {
		err := Generate(c.opt, func(*record.Record) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.opt, err, c.want)
		}
	}
}

func TestParseTasks(t *testing.T) {
	sni := `{"Definition": ["Say it."], "Categories": ["X"], "Instances": [{"id": "1", "input": "a", "output": ["b", "c"]}]}`
	ts, err := ParseTasks([]byte(sni), "task001_say")
	if err != nil || len(ts) != 1 || ts[0].Name != "task001_say" || ts[0].Instances[0].Output != "b" || !ts[0].Instances[0].accepts("c") || ts[0].Category != "X" {
		t.Fatalf("SNI task: %+v, %v", ts, err)
	}
	jsonl := `{"Name": "a", "Definition": ["d"], "Instances": [{"input": "x", "output": ["y"]}]}` + "\n" +
		`{"Name": "b", "Definition": ["d"], "Instances": [{"input": "x", "output": ["y"]}]}` + "\n"
	if ts, err := ParseTasks([]byte(jsonl), "f"); err != nil || len(ts) != 2 {
		t.Fatalf("JSON Lines: %+v, %v", ts, err)
	}
	// The sample in samples/ shows the Super-NaturalInstructions file layout
	// to users; it must keep loading and making exams.
	sample := "../../samples/longins/task9001_ifkit_capitals.json"
	ts, err = LoadTasks(sample)
	if err != nil || len(ts) != 1 || ts[0].Name != "task9001_ifkit_capitals" || len(ts[0].Instances) < 10 {
		t.Fatalf("LoadTasks(%s): %d tasks, %v", sample, len(ts), err)
	}
	if exams := generate(t, GenOptions{Lengths: []int{512}, Modes: []string{GIST}, ErrorRate: 0.1, Tasks: ts}); len(exams) != 1 {
		t.Errorf("%s: %d exams at 512 tokens, want 1", sample, len(exams))
	}
	bad := []struct{ src, want string }{
		{`{"Definition": ["d"], "Instances": []}`, "no instances"},
		{`{"Definition": ["d"]}`, "no instances"},
		{`{"Instances": [{"input": "x", "output": ["y"]}]}`, "no Definition"},
		{``, "empty"},
		{`[]`, "no tasks"},
	}
	for _, b := range bad {
		if _, err := ParseTasks([]byte(b.src), "f"); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseTasks(%s) = %v, want an error containing %q", b.src, err, b.want)
		}
	}
}

// The official GIST_256.json imports as 1,419 exams; a reply naming exactly
// the gold ids scores F1 1 except on the 22 exams with no wrong answer,
// which cap the mean at 98.45 as the official scorer does.
func TestImportOfficialAndScore(t *testing.T) {
	p := testbin.Reference(t, "longins", "GIST_256.json")
	mode, length, ok := ModeLengthOf(p)
	if !ok || mode != GIST || length != 256 {
		t.Fatalf("ModeLengthOf(%s) = %q %d %v", p, mode, length, ok)
	}
	var recs []*record.Record
	if err := ImportOfficial(p, mode, length, func(r *record.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1419 {
		t.Fatalf("%d exams, want 1419", len(recs))
	}
	ex, _ := NewExpander(expand.Options{})
	sc, _ := NewScorer(judgeOpts)
	agg := NewAggregator(aggregate.Options{Decimals: 2})
	empty := 0
	for _, r := range recs {
		if err := ex.Expand(r, func(*record.Record) error { return nil }); err != nil {
			t.Fatal(err)
		}
		var g Gold
		r.Decode("gold", &g)
		if len(g.Wrong) == 0 {
			empty++
		}
		parts := make([]string, len(g.Wrong))
		for i, w := range g.Wrong {
			parts[i] = strconv.Itoa(w)
		}
		r.Set("model", "oracle")
		r.Set("response", record.Response{Text: "[" + strings.Join(parts, ", ") + "]"})
		d, err := sc.Prepare(r)
		if err != nil {
			t.Fatal(err)
		}
		r.Set("judgement", d.Judgement)
		if err := agg.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if empty != 22 {
		t.Errorf("%d exams with an empty gold list, want 22", empty)
	}
	res, err := agg.Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Rows {
		if row.Metric == "F1" {
			want := 100 * float64(1419-22) / 1419
			if math.Abs(row.Value-want) > 1e-9 || row.N != 1419 {
				t.Errorf("F1 = %v over %d exams, want %v over 1419", row.Value, row.N, want)
			}
			return
		}
	}
	t.Error("no F1 row")
}

// At skill 1 the sim names exactly the wrong answers of every exam.
func TestSolverFullSkill(t *testing.T) {
	recs := generate(t, GenOptions{Lengths: []int{256, 1024}, Modes: Modes, ErrorRate: 0.1, Seed: 3})
	for _, r := range recs {
		var c Context
		var g Gold
		r.Decode("context", &c)
		r.Decode("gold", &g)
		req := &sim.Request{Chat: true, Messages: []sim.Message{{Role: "user", Content: Prompt(c)}}}
		reply, ok := Solver{}.Solve(req, sim.Params{Skill: 1, Rand: rand.New(rand.NewPCG(1, 2))})
		if !ok {
			t.Fatalf("%s: the solver did not recognise the exam", r.ID())
		}
		pred, _ := Predicted(reply)
		if f1, _ := F1(pred, g.Wrong); f1 != 1 {
			t.Errorf("%s: F1 %v at skill 1 (reply %s, gold %v)", r.ID(), f1, reply, g.Wrong)
		}
	}
}

// A failed exam follows --failed: official scores it F1 0, as the official
// runner stores an empty response and eval.py's calculate_f1_score gives an
// empty prediction 0; exclude leaves it out. n_failed counts it either way.
func TestAggregateCountsFailures(t *testing.T) {
	for _, tc := range []struct {
		policy string
		f1     float64
		n      int
	}{
		{aggregate.FailedOfficial, 25, 2},
		{"", 25, 2}, // the default is official
		{aggregate.FailedExclude, 50, 1},
	} {
		agg := NewAggregator(aggregate.Options{Decimals: 2, Failed: tc.policy})
		ok := record.New("a")
		ok.Set("bench", Bench)
		ok.Set("model", "m")
		ok.Set("group", map[string]string{"mode": GIST, "length": "256"})
		ok.Set("response", record.Response{Text: "[1]", ServerTruncated: true})
		ok.Set("judgement", record.Judgement{Score: 0.5, Rubric: Rubric, Detail: map[string]any{"hits": []Hit{{ID: 1, Depth: 2, Hit: true}, {ID: 5, Depth: 9}}, "gold_wrong": 2}})
		failed := record.New("b")
		failed.Set("bench", Bench)
		failed.Set("request", map[string]any{"model": "m"})
		failed.Set("group", map[string]string{"mode": GIST, "length": "256"})
		failed.Set("error", record.Error{Stage: "infer-batch", Kind: "http", Message: "500"})
		for _, r := range []*record.Record{ok, failed} {
			if err := agg.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		res, _ := agg.Result()
		got := map[string]report.Row{}
		for _, row := range res.Rows {
			got[row.Metric+fmt.Sprint(row.Nums["depth"])] = row
		}
		f1 := got["F1"+fmt.Sprint(0.0)]
		if f1.Value != tc.f1 || f1.N != tc.n || f1.NFailed != 1 || f1.NTruncated != 1 || f1.Unit != "percent" || f1.Nums["length_tokens"] != 256 {
			t.Errorf("--failed %q: F1 row %+v, want %v over %d, n_failed 1, n_truncated 1", tc.policy, f1, tc.f1, tc.n)
		}
		if got["depth_accuracy2"].Value != 100 || got["depth_accuracy9"].Value != 0 {
			t.Errorf("--failed %q: depth rows %v", tc.policy, got)
		}
	}
}

var judgeOpts = judge.Options{}

func TestGenerateSkipsLengthsTooShort(t *testing.T) {
	var warned []string
	recs := generate(t, GenOptions{Lengths: []int{2}, Modes: []string{GIST}, ErrorRate: 0.1, Warn: func(m string) { warned = append(warned, m) }})
	if len(recs) != 0 || len(warned) != len(DefaultTasks()) {
		t.Errorf("%d exams and %d warnings for a 2-token length", len(recs), len(warned))
	}
}

func TestPromptLayouts(t *testing.T) {
	gist := Prompt(Context{Mode: GIST, TaskPrompt: "Add them.", Data: "[0:1 + 1 Answer: 3]\n\n"})
	want := Opening + "\n" + gistTaskLine + "\nAdd them.\n" + gistFindLine + "\n[0:1 + 1 Answer: 3]\n\n" + Closing
	if gist != want {
		t.Errorf("GIST prompt:\n%q\nwant\n%q", gist, want)
	}
	list := Prompt(Context{Mode: LIST, Data: "[0:Instruction: Add them. Question: 1 + 1 Answer: 3]\n\n"})
	if strings.Contains(list, gistTaskLine) || !strings.Contains(list, localLine) || !strings.HasSuffix(list, "Answer:") {
		t.Errorf("LIST prompt:\n%s", list)
	}
}

// A failed exam names no wrong answer: under --failed official each of its
// wrong answers is missed at its depth (gold.depths); exclude leaves it out.
func TestAggregateFailedDepths(t *testing.T) {
	for _, tc := range []struct {
		policy string
		depth2 float64
	}{
		{aggregate.FailedOfficial, 50},
		{aggregate.FailedExclude, 100},
	} {
		agg := NewAggregator(aggregate.Options{Decimals: 2, Failed: tc.policy})
		ok := record.New("a")
		ok.Set("bench", Bench)
		ok.Set("model", "m")
		ok.Set("group", map[string]string{"mode": GIST, "length": "256"})
		ok.Set("judgement", record.Judgement{Score: 1, Rubric: Rubric, Detail: map[string]any{"hits": []Hit{{ID: 1, Depth: 2, Hit: true}}, "gold_wrong": 1}})
		failed := record.New("b")
		failed.Set("bench", Bench)
		failed.Set("model", "m")
		failed.Set("group", map[string]string{"mode": GIST, "length": "256"})
		failed.Set("gold", Gold{Wrong: []int{3}, Depths: []int{2}, Questions: 10})
		failed.Set("error", record.Error{Stage: "infer-batch", Kind: "http", Message: "500"})
		for _, r := range []*record.Record{ok, failed} {
			if err := agg.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		res, _ := agg.Result()
		for _, row := range res.Rows {
			if row.Metric == "depth_accuracy" && row.Nums["depth"] == 2 && row.Value != tc.depth2 {
				t.Errorf("--failed %s: depth 2 accuracy %v, want %v", tc.policy, row.Value, tc.depth2)
			}
		}
	}
}

// A reply with a number of more than 4,300 digits stops the official
// eval.py (int() raises ValueError on Python 3.10.7+). ifkit scores it as
// eval.py does without the limit, says so in the judgement, and the table
// counts such exams.
func TestOverLimitReplies(t *testing.T) {
	rec := record.New("a")
	rec.Set("bench", Bench)
	rec.Set("model", "m")
	rec.Set("group", map[string]string{"mode": GIST, "length": "256"})
	rec.Set("gold", Gold{Wrong: []int{3}, Depths: []int{1}, Questions: 10})
	rec.Set("response", record.Response{Text: "[3, " + strings.Repeat("9", pystr.IntMaxStrDigits+1) + "]"})
	s, _ := NewScorer(judgeOpts)
	d, err := s.Prepare(rec)
	if err != nil {
		t.Fatal(err)
	}
	if d.Judgement.Score != 2*0.5*1/1.5 || d.Judgement.Detail[DetailOverLimit] != 1 {
		t.Fatalf("judgement %+v: want F1 2/3 (the number a false positive) and %s 1", d.Judgement, DetailOverLimit)
	}
	rec.Set("judgement", d.Judgement)
	agg := NewAggregator(aggregate.Options{Decimals: 2})
	if err := agg.Add(rec); err != nil {
		t.Fatal(err)
	}
	res, _ := agg.Result()
	if notes := strings.Join(aggregate.Lay(Tables, res, aggregate.TableOptions{Decimals: 2})[0].Notes, "\n"); !strings.Contains(notes, "Exams whose reply names a number of more than 4300 digits inside [...]: 1.") {
		t.Errorf("the F1 table does not count the reply the official eval.py cannot read:\n%s", notes)
	}
}

// The mean F1 is a correctly rounded sum (lib/fsum): the same judged exams in
// any order give the same rows and tables, to the last bit.
func TestAggregateIgnoresRecordOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var recs []*record.Record
	for i := range 60 {
		rec := record.New(fmt.Sprintf("e%d", i))
		rec.Set("bench", Bench)
		rec.Set("model", "m")
		rec.Set("group", map[string]string{"mode": GIST, "length": strconv.Itoa(256 << (i % 2))})
		rec.Set("judgement", record.Judgement{Score: float64(r.IntN(10)) / float64(1+r.IntN(9)) / 10, Rubric: Rubric, Detail: map[string]any{"hits": []Hit{{ID: 1, Depth: i % 10, Hit: i%3 == 0}}, "gold_wrong": 1}})
		recs = append(recs, rec)
	}
	show := func(recs []*record.Record) string {
		agg := NewAggregator(aggregate.Options{Decimals: 2})
		for _, rec := range recs {
			if err := agg.Add(rec); err != nil {
				t.Fatal(err)
			}
		}
		res, _ := agg.Result()
		return fmt.Sprintf("%v\n%v", res.Rows, aggregate.Lay(Tables, res, aggregate.TableOptions{Decimals: 2}))
	}
	want := show(recs)
	for p, other := range testbin.Orders(recs, 4) {
		if got := show(other); got != want {
			t.Fatalf("exams in order %d (0 is reversed) give other metrics:\n%s\nwant\n%s", p, got, want)
		}
	}
}
