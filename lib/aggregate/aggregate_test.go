package aggregate

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stats"
	"github.com/urfave/cli/v2"
)

// counter counts the records of its bench per model.
type counter struct{ n map[string]int }

func (c *counter) Add(rec *record.Record) error {
	c.n[ModelOf(rec)]++
	return nil
}

func (c *counter) Result() (*Result, error) {
	res := &Result{}
	for m, n := range c.n {
		res.Rows = append(res.Rows, report.Row{Bench: "b", Model: m, Metric: "count", Value: float64(n), N: n})
	}
	return res, nil
}

// countTables is a line per model.
func countTables(rows []report.Row, _ TableOptions) []report.Table {
	t := report.Table{Title: "count", Columns: []string{"model", "n"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Model, report.Cell(r, func(v float64) string { return report.Fmt(v, 0) })})
	}
	return []report.Table{t}
}

// countDesign resamples the records by their "unit" field; a record with
// "off" makes the count it gives back one too many.
var countDesign = Design{
	Unit: "thing",
	Item: func(rec *record.Record, _ Options) (Item, bool, error) {
		it := Item{Unit: rec.String("unit")}
		it.Add("n", 1)
		if rec.Has("off") {
			it.Add("off", 1)
		}
		return it, true, nil
	},
	Estimator: func(row report.Row, r *stats.Reader) stats.Estimator {
		n, off := r.Var("n"), r.Var("off")
		return func(x []float64) float64 { return stats.At(x, n) + stats.At(x, off) }
	},
	Headline: func(report.Row) int { return 1 },
}

// run calls Run through the real CLI layer and returns exit code, stdout, stderr.
func run(t *testing.T, input string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	reg := Registry{Aggregators: map[string]Factory{"b": func(Options) Aggregator { return &counter{n: map[string]int{}} }}, Tables: map[string]Tabler{"b": countTables},
		Importers: map[string]Importer{"rows": ImportRows}, Designs: map[string]Design{"b": countDesign}, Judged: map[string]bool{"b": true}}
	tool := app.Tool{Name: "aggregate-ifs", TextOutput: true, Answerer: Answerer, Flags: []cli.Flag{&cli.BoolFlag{Name: "exclude-truncated"}, &cli.StringFlag{Name: "import"}, &cli.StringFlag{Name: "ci"},
		&cli.StringFlag{Name: "compare"}, &cli.StringFlag{Name: "flips"}, &cli.StringFlag{Name: "correction"}, &cli.StringFlag{Name: "price"}, &cli.StringFlag{Name: "judge-price"}}, Action: func(r *app.Run) error {
		price, _ := cost.ParsePrice(r.String("price"))
		judgePrice, _ := cost.ParsePrice(r.String("judge-price"))
		return Run(r, reg, "md", r.String("import"), r.Getenv("ROWS"), Options{Decimals: 3, ExcludeTruncated: r.Bool("exclude-truncated"), CI: r.String("ci"), Bootstrap: 200,
			Compare: r.String("compare"), Flips: r.String("flips"), Correction: r.String("correction"), Price: price, JudgePrice: judgePrice})
	}}
	rows := filepath.Join(dir, "rows.jsonl")
	code := app.RunTool(tool, append([]string{"aggregate-ifs"}, args...), app.Env{
		Stdin: strings.NewReader(input), Stdout: out, Stderr: &stderr,
		Getenv: func(k string) string {
			if k == "ROWS" {
				return rows
			}
			return ""
		},
	})
	out.Close()
	b, _ := os.ReadFile(out.Name())
	r, _ := os.ReadFile(rows)
	return code, string(b) + "\n--rows--\n" + string(r), stderr.String()
}

func TestRun(t *testing.T) {
	// Two children of one cut reply count as one record.
	cut := `{"id":"1#a","parent":"1","bench":"b","model":"m","response":{"server_truncated":true}}` + "\n" +
		`{"id":"1#b","parent":"1","bench":"b","model":"m","response":{"server_truncated":true}}` + "\n" +
		`{"id":"2","bench":"b","model":"m","response":{"text":"t"}}` + "\n"
	cached := `{"id":"1#a","parent":"1","bench":"b","model":"m","response":{"usage":{"prompt_tokens":10,"completion_tokens":7,"completion_tokens_details":{"reasoning_tokens":5}},"cached":true},"judgement":{"judge":{"model":"j","reply":"yes","usage":{"prompt_tokens":100,"completion_tokens":10},"cached":true}}}` + "\n" +
		`{"id":"1#b","parent":"1","bench":"b","model":"m","response":{"usage":{"prompt_tokens":10,"completion_tokens":7,"completion_tokens_details":{"reasoning_tokens":5}},"cached":true},"judgement":{"judge":{"model":"j","reply":"no","usage":{"prompt_tokens":200,"completion_tokens":20}}}}` + "\n" +
		`{"id":"2","bench":"b","model":"m","response":{"text":"t","usage":{"prompt_tokens":20,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4}}},"judgement":{"judge":{"model":"j","reply":"no","usage":{"prompt_tokens":300,"completion_tokens":30}}}}` + "\n"
	const (
		jA1         = `{"id":"1","bench":"b","model":"m","unit":"u1","judge_model":"ja","judgement":{"judge":{"model":"ja-0613"}}}`
		jA2         = `{"id":"2","bench":"b","model":"m","unit":"u2","judge_model":"ja","error":{"stage":"infer-batch","kind":"x","message":"y"}}`
		jB1         = `{"id":"1","bench":"b","model":"m","unit":"u1","judge_model":"jb","judgement":{"judge":{"model":"jb"}}}`
		jB2         = `{"id":"2","bench":"b","model":"m","unit":"u2","judge_model":"jb","error":{"stage":"infer-batch","kind":"x","message":"y"}}`
		jN          = `{"id":"1","bench":"b","model":"n","unit":"u1","judgement":{"judge":{"model":"jb"}}}`
		jOld        = `{"id":"1","bench":"b","model":"m","unit":"u1","judgement":{"judge":{"model":"ja"}}}`
		jOldFail    = `{"id":"2","bench":"b","model":"m","unit":"u2","error":{"stage":"judge","kind":"x","message":"y"}}`
		jOldDecided = `{"id":"3","bench":"b","model":"m","unit":"u3","judgement":{"score":0,"verdict":"missing"}}`
	)
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	for _, tc := range []struct {
		name, input string
		args        []string
		code        int
		want, not   []string
	}{
		{"per model, failed records counted under the model they were sent to",
			`{"id":"1","bench":"b","model":"m1"}` + "\n" + `{"id":"2","bench":"b","request":{"model":"m2"},"error":{"stage":"infer-batch","kind":"http","message":"x"}}` + "\n",
			nil, 0, []string{"| m1 | 1 [too few] |", "| m2 | 1 [too few] |", `"metric":"count"`}, []string{"test double", "simulated", "Server-truncated"}},
		{"replies from llm-sim are marked in tables and rows",
			`{"id":"1","bench":"b","model":"m","response":{"text":"t","system_fingerprint":"llm-sim"}}` + "\n",
			nil, 0, []string{"llm-sim, a test double", `"simulated":"true"`}, nil},
		{"a bench without an aggregator is bad input naming the record",
			`{"id":"x1","bench":"nope"}` + "\n", nil, app.ExitBadInput, nil, nil},
		{"server-truncated records are counted and every table says so", cut, nil,
			0, []string{"| m | 3 [too few] |", "Server-truncated: 1 of 2 records", "--exclude-truncated leaves them out"}, nil},
		{"--exclude-truncated leaves them out and says so", cut, []string{"--exclude-truncated"},
			0, []string{"| m | 1 [too few] |", "Server-truncated: 1 of 2 records", "left out of this table (--exclude-truncated)"}, nil},
		{"the replies' tokens, and the cache's share of replies and verdicts, once per parent", cached, nil,
			0, []string{"Tokens: 30 prompt (4 served by the server's prefix cache), 12 completion (5 reasoning), over 2 replies",
				"Cache: 1 of 2 replies (response.cached) and 1 of 3 judge verdicts (judgement.judge.cached) came from the cache",
				"Judge tokens: 600 prompt, 60 completion, over 3 judge calls (judgement.judge.usage)."}, []string{"cost"}},
		{"priced: what this run's calls paid for, the cache's answers apart", cached, []string{"--price", "in=1000,out=2000,cached=500", "--judge-price", "in=1,out=2"},
			0, []string{"over 2 replies (response.usage); at in=1000,out=2000,cached=500 per million tokens they cost 0.0280 (the calls this run paid for; the cache's answers were paid by an earlier run).",
				"over 3 judge calls (judgement.judge.usage); at in=1,out=2 per million tokens they cost 0.0006 (the calls"}, nil},
		{"no note of the cache when it gave nothing", cut, nil, 0, nil, []string{"Cache:", "Tokens:"}},
		{"one item answered by two models, or judged by two judges, is read side by side",
			`{"id":"1","bench":"b","model":"m1"}` + "\n" + `{"id":"1","bench":"b","model":"m2"}` + "\n" +
				`{"id":"1#a","bench":"b","model":"m3","judgement":{"judge":{"model":"j1"}}}` + "\n" + `{"id":"1#a","bench":"b","model":"m3","judgement":{"judge":{"model":"j2"}}}` + "\n",
			nil, 0, []string{"| m1 | 1 [too few] |", "| m2 | 1 [too few] |", "| m3 (judge j1) | 1 [too few] |", "| m3 (judge j2) | 1 [too few] |"}, nil},
		// One model's records judged by two judge models are two models side
		// by side, named by report.JudgeLabel; a model with one judge keeps
		// its name. A failed record that names no judge (a file judged
		// before judge_model) is its model's only judge's, wherever it comes
		// in the input; with several judges it is bad input naming its line
		// and what to do.
		{"two judges of one model, failed records named by their judge", lines(jA1, jA2, jB1, jB2, jN), nil, 0,
			[]string{"| m (judge ja) | 2 [too few] |", "| m (judge jb) | 2 [too few] |", "| n | 1 [too few] |",
				"| m (judge ja) | b | ", "| 2: 1 failed, 0 cut by the server, 0 reasoning unfinished | ja-0613 |", `"model":"m (judge jb)"`},
			[]string{"| m | ", "n (judge"}},
		{"two judges, read in another order", lines(jB2, jN, jA2, jB1, jA1), nil, 0,
			[]string{"| m (judge ja) | 2 [too few] |", "| m (judge jb) | 2 [too few] |", "| n | 1 [too few] |"}, nil},
		{"a failed record naming no judge is the only judge's, read after it", lines(jOld, jOldFail), nil, 0,
			[]string{"| m | 2 [too few] |"}, []string{"(judge"}},
		{"a failed record naming no judge is the only judge's, read before it", lines(jOldFail, jOld), nil, 0,
			[]string{"| m | 2 [too few] |"}, []string{"(judge"}},
		{"a check decided without a call in a file judged before judge_model is the only judge's", lines(jOldDecided, jOld, jOldFail), nil, 0,
			[]string{"| m | 3 [too few] |"}, []string{"(judge"}},
		{"a failed record naming no judge of a model with two judges is bad input", lines(jA1, jB1, jOldFail), nil, app.ExitBadInput, nil, nil},
		{"one judge's answer read twice is bad input naming both places", lines(jA1, jB1, jA1), nil, app.ExitBadInput, nil, nil},
		{"one model's answer read twice is bad input naming both places",
			`{"id":"1","bench":"b","model":"m1"}` + "\n" + `{"id":"1","bench":"b","model":"m2"}` + "\n" + `{"id":"1","bench":"b","model":"m1"}` + "\n",
			nil, app.ExitBadInput, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, tc.input, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if code == app.ExitBadInput && !slices.ContainsFunc([]string{`-:1: record "x1": bench "nope" has no aggregator`, `-:3: record "1": duplicate id answered by model "m1": already read at -:1`,
				`-:3: record "1": duplicate id answered by model "m", judge "ja": already read at -:1`,
				`-:3: record "2": this record names no judge model, and model "m" has records of several judges in b ("ja", "jb"): it cannot be counted under one; name each file's judge on its records ("judge_model"`}, func(s string) bool { return strings.Contains(stderr, s) }) {
				t.Errorf("stderr does not name the record: %s", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}

// A group's values are text whatever their JSON type; a null is absent.
func TestGroupOf(t *testing.T) {
	for _, tt := range []struct {
		line string
		want map[string]string
	}{
		{`{"id":"a","group":{"length":"4k","density":10,"strict":true,"seed":null}}`, map[string]string{"length": "4k", "density": "10", "strict": "true"}},
		{`{"id":"a","group":{"note":"caf\u00e9"}}`, map[string]string{"note": "café"}},
		{`{"id":"a"}`, nil},
		{`{"id":"a","group":"not an object"}`, nil},
	} {
		rec, err := record.Parse([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := GroupOf(rec); !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.line, got, tt.want)
		}
	}
}

// Rows written by earlier runs make the same tables, every file's models
// side by side, and one model's two runs apart; where a cut could not have
// been seen, the rows' cut_check says so under the tables.
func TestImportRowsTables(t *testing.T) {
	dir := t.TempDir()
	write := func(name, rows string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.jsonl", `{"bench":"b","model":"m1","metric":"count","value":3,"n":3,"run":"r1","simulated":"true","cut_check":"exact"}`+"\n")
	b := write("b.jsonl", `{"bench":"b","model":"m2","metric":"count","value":4,"n":4,"run":"r2","cut_check":"cuts not checked"}`+"\n"+`{"bench":"b","model":"m1","metric":"count","value":5,"n":5,"run":"r2","cut_check":"cuts under 5 % not detectable"}`+"\n")
	code, out, stderr := run(t, "", "--import", "rows", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"| m1 (run r1) | 3 |", "| m1 (run r2) | 5 |", "| m2 | 4 |", "m1 (run r1): " + SimulatorNote,
		"m2: Server-truncated: cuts not checked", "m1 (run r2): Server-truncated: cuts under 5 % not detectable"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// Every row its benchmark's design has an estimator for gets an interval
// from the model's units, the same whatever the records' order; too few
// units, --ci none, or a design that does not give back the row's value,
// none (the last with a warning).
func TestIntervals(t *testing.T) {
	lines := func(units int, extra string) []string {
		var out []string
		for i := range 12 {
			out = append(out, fmt.Sprintf(`{"id":"%d","bench":"b","model":"m","unit":"u%d"%s}`, i, i%units, extra))
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		lines     []string
		args      []string
		want, not []string
	}{
		{"six units", lines(6, ""), nil, []string{`"ci_low":12,"ci_high":12,`, `"ci_level":0.95,"ci_method":"bootstrap","ci_unit":"thing","n_units":6`, "| m | 12 [12, 12] |", "[low, high]: 95 % confidence interval, resampling the things"}, []string{"WARN"}},
		{"four units", lines(4, ""), nil, []string{`"ci_method":"too few units","ci_unit":"thing","n_units":4`, "| m | 12 [too few] |", "[too few]: fewer than 5 things"}, nil},
		{"--ci none", lines(6, ""), []string{"--ci", "none"}, []string{`"ci_level":null,"ci_method":"","ci_unit":"","n_units":null`, "| m | 12 |"}, []string{"confidence"}},
		{"a design that does not give back the value", lines(6, `,"off":1`), nil, []string{"do not give back its metric: no interval", `"ci_level":null`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first string
			for _, order := range [][]string{tc.lines, reversed(tc.lines)} {
				code, out, stderr := run(t, strings.Join(order, "\n")+"\n", tc.args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				for _, w := range tc.want {
					if !strings.Contains(out+stderr, w) {
						t.Errorf("output lacks %q:\n%s%s", w, out, stderr)
					}
				}
				for _, n := range tc.not {
					if strings.Contains(out+stderr, n) {
						t.Errorf("output has %q:\n%s%s", n, out, stderr)
					}
				}
				if rows := out[strings.Index(out, "--rows--"):]; first == "" {
					first = rows
				} else if !sameButRun(rows, first) {
					t.Errorf("another order, other rows:\n%s\n%s", rows, first)
				}
			}
		})
	}
}

func reversed(xs []string) []string {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// runID matches what differs between two runs over the same records: the
// run id, and the time the rows were made (a run may start in the next
// second).
var runID = regexp.MustCompile(`"run":"[0-9a-f]*"|"created":"[^"]*"`)

func sameButRun(a, b string) bool {
	return runID.ReplaceAllString(a, "") == runID.ReplaceAllString(b, "")
}

// --compare pairs each other model with the baseline on the items both
// answered (the others counted, left out), gives the difference with its
// paired interval, p-value and verdict in a table and as delta_ rows, and
// --flips lists the items whose score changed.
func TestCompare(t *testing.T) {
	var lines []string
	for i := range 12 {
		score := 1
		if i < 2 {
			score = 0
		}
		if i != 11 {
			lines = append(lines, fmt.Sprintf(`{"id":"%d","bench":"b","model":"a","unit":"u%d","task":"t","group":{"k":"v%d"},"judgement":{"score":1},"response":{"usage":{"completion_tokens":%d}}}`, i, i%6, i, 10+i))
		}
		if i != 0 {
			lines = append(lines, fmt.Sprintf(`{"id":"%d","bench":"b","model":"b","unit":"u%d","task":"t","group":{"k":"v%d"},"judgement":{"score":%d}}`, i, i%6, i, score))
		}
	}
	input := strings.Join(lines, "\n") + "\n"
	flips := filepath.Join(t.TempDir(), "flips.jsonl")
	code, out, stderr := run(t, input, "--compare", "a", "--flips", flips)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{
		"### b: paired comparison with a",
		"| b | count | 10.000 | 10.000 | 0.000 [0.000, 0.000] | 1.0000 | 1.0000 | no detectable difference | 0.000 | 6 | 10 | 1 | 1 |",
		"after the Holm correction for the 1 comparisons",
		`"model":"b","metric":"delta_count","value":0,"ci_low":0,"ci_high":0,`, `"ifkit_version":"dev","created":"20`,
		`"baseline":"a","baseline_run":"`, `"only_baseline":1,"only_model":1,"p_adjusted":1,"p_value":1,`, `"verdict":"no detectable difference"`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	b, err := os.ReadFile(flips)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"bench":"b","id":"1","task":"t","baseline":"a","baseline_run":"RUN","model":"b","run":"RUN","baseline_score":1,"score":0,"delta":-1,"baseline_failed":false,"failed":false,"baseline_reply_tokens":11,"reply_tokens":null,"k":"v1"}` + "\n"
	if got := regexp.MustCompile(`_?run":"[0-9a-f]+"`).ReplaceAllStringFunc(string(b), func(s string) string { return s[:strings.Index(s, ":")+1] + `"RUN"` }); got != want {
		t.Errorf("flips:\n%s\nwant\n%s", got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "zzz"}, `, a, b)`},
		{[]string{"--flips", flips}, "give --compare MODEL too"},
		{[]string{"--compare", "a", "--correction", "bonferroni"}, `--correction "bonferroni": want holm (the default) or bh`},
	} {
		if code, _, stderr := run(t, input, tc.args...); code != app.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// --compare "MODEL (judge J)" pairs two judges' verdicts on the same items,
// and --flips lists the items they judged apart.
func TestCompareJudges(t *testing.T) {
	var in []string
	for i, unit := range []string{"u1", "u2", "u3", "u4", "u5", "u6"} {
		id := string(rune('a' + i))
		in = append(in, `{"id":"`+id+`","bench":"b","model":"m","unit":"`+unit+`","judge_model":"ja","judgement":{"score":1}}`)
		score := "1"
		if i < 2 {
			score = "0"
		}
		in = append(in, `{"id":"`+id+`","bench":"b","model":"m","unit":"`+unit+`","judge_model":"jb","judgement":{"score":`+score+`}}`)
	}
	flips := filepath.Join(t.TempDir(), "flips.jsonl")
	code, out, stderr := run(t, strings.Join(in, "\n")+"\n", "--compare", "m (judge ja)", "--flips", flips)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^### b: paired comparison with m \(judge ja\)$`).MatchString(out) || !strings.Contains(out, "| m (judge jb) | count | 6.000 | 6.000 |") {
		t.Errorf("no comparison of the two judges:\n%s", out)
	}
	b, err := os.ReadFile(flips)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != 2 || !strings.Contains(got[0], `"id":"a"`) || !strings.Contains(got[0], `"baseline":"m (judge ja)"`) || !strings.Contains(got[0], `"model":"m (judge jb)"`) || !strings.Contains(got[1], `"id":"b"`) {
		t.Errorf("flips:\n%s", b)
	}
}

func TestJudgeLabel(t *testing.T) {
	for _, tc := range [][3]string{{"m", "j", "m (judge j)"}, {"m", "", "m (judge none)"}} {
		if got := report.JudgeLabel(tc[0], tc[1]); got != tc[2] {
			t.Errorf("JudgeLabel(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
	if got := report.RunLabel("m", "r"); got != "m (run r)" {
		t.Errorf("RunLabel: %q", got)
	}
	js := newJudges(nil)
	for _, k := range []answerer{{bench: "b", model: "m", run: ""}, {bench: "b", model: "n", run: ""}} {
		js.of[k] = []string{"ja"}
	}
	js.of[answerer{bench: "b", model: "m", run: "r2"}] = []string{"ja", "jb"}
	got := []string{js.label("b", "m", "", "ja"), js.label("b", "m", "r2", "jb"), js.label("b", "n", "", "ja"), js.label("c", "m", "", "ja")}
	if want := []string{"m", "m (judge jb)", "n", "m"}; !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}

// The report lays the benchmarks out in the registry's order, as the page's
// sections; one the registry does not name (a test's) comes after, by name.
func TestInOrder(t *testing.T) {
	m := map[string]int{"longins": 0, "eifbench": 0, "zeta": 0, "lifbench": 0, "alpha": 0}
	for _, tc := range []struct {
		order []string
		want  string
	}{
		{[]string{"lifbench", "ifscale", "longins", "longgenbench", "eifbench"}, "lifbench longins eifbench alpha zeta"},
		{nil, "alpha eifbench lifbench longins zeta"},
	} {
		if got := strings.Join(inOrder(tc.order, m), " "); got != tc.want {
			t.Errorf("inOrder(%v) = %s, want %s", tc.order, got, tc.want)
		}
	}
}

// Only a benchmark an LLM judges holds back the records that name no judge:
// a program's scores never name one, and a failed record of a program-scored
// benchmark is counted as it is read.
func TestJudgesHoldOnlyJudgedBenchmarks(t *testing.T) {
	js := newJudges(map[string]bool{"llm": true})
	for _, tc := range []struct {
		rec  string
		held bool
	}{
		{`{"id":"1","bench":"llm","model":"m","error":{"stage":"infer-batch","kind":"x"}}`, true},
		{`{"id":"2","bench":"llm","model":"m","judgement":{"score":0}}`, true},
		{`{"id":"3","bench":"llm","model":"m","judge_model":"j","error":{"stage":"infer-batch","kind":"x"}}`, false},
		{`{"id":"4","bench":"program","model":"m","error":{"stage":"infer-batch","kind":"x"}}`, false},
		{`{"id":"5","bench":"program","model":"m","judgement":{"score":1}}`, false},
	} {
		rec, err := record.Parse([]byte(tc.rec))
		if err != nil {
			t.Fatal(err)
		}
		if got := js.add(rec, "", "-", 1); got != tc.held {
			t.Errorf("%s: held %v, want %v", tc.rec, got, tc.held)
		}
	}
}
