package aggregate

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/report"
)

// One model's records judged by two judge models are two models side by
// side, named by report.JudgeLabel; a model with one judge keeps its name.
// A failed record that names no judge (a file judged before judge_model)
// is its model's only judge's, wherever it comes in the input; with several
// judges it is bad input naming its line and what to do.
func TestJudgesApart(t *testing.T) {
	const (
		a1      = `{"id":"1","bench":"b","model":"m","unit":"u1","judge_model":"ja","judgement":{"judge":{"model":"ja-0613"}}}`
		a2      = `{"id":"2","bench":"b","model":"m","unit":"u2","judge_model":"ja","error":{"stage":"infer-batch","kind":"x","message":"y"}}`
		b1      = `{"id":"1","bench":"b","model":"m","unit":"u1","judge_model":"jb","judgement":{"judge":{"model":"jb"}}}`
		b2      = `{"id":"2","bench":"b","model":"m","unit":"u2","judge_model":"jb","error":{"stage":"infer-batch","kind":"x","message":"y"}}`
		old1    = `{"id":"1","bench":"b","model":"m","unit":"u1","judgement":{"judge":{"model":"ja"}}}`
		oldFail = `{"id":"2","bench":"b","model":"m","unit":"u2","error":{"stage":"judge","kind":"x","message":"y"}}`
		other   = `{"id":"1","bench":"b","model":"n","unit":"u1","judgement":{"judge":{"model":"jb"}}}`
	)
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	for _, tc := range []struct {
		name, input string
		code        int
		want, not   []string
	}{
		{"two judges of one model, failed records named by their judge", lines(a1, a2, b1, b2, other), 0,
			[]string{"| m (judge ja) | 2 [too few] |", "| m (judge jb) | 2 [too few] |", "| n | 1 [too few] |",
				"| m (judge ja) | b | ", "| 2: 1 failed, 0 cut by the server, 0 reasoning unfinished | ja-0613 |", `"model":"m (judge jb)"`},
			[]string{"| m | ", "n (judge"}},
		{"the same, read in another order", lines(b2, other, a2, b1, a1), 0,
			[]string{"| m (judge ja) | 2 [too few] |", "| m (judge jb) | 2 [too few] |", "| n | 1 [too few] |"}, nil},
		{"a failed record naming no judge is the only judge's, read after it", lines(old1, oldFail), 0,
			[]string{"| m | 2 [too few] |"}, []string{"(judge"}},
		{"a failed record naming no judge is the only judge's, read before it", lines(oldFail, old1), 0,
			[]string{"| m | 2 [too few] |"}, []string{"(judge"}},
		{"a failed record naming no judge of a model with two judges is bad input", lines(a1, b1, oldFail), app.ExitBadInput, nil, nil},
		{"the same answer of one judge twice is bad input", lines(a1, b1, a1), app.ExitBadInput, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, tc.input)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
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
			switch {
			case code == 0:
			case strings.Contains(tc.name, "twice"):
				if !strings.Contains(stderr, `-:3: record "1": duplicate id answered by model "m", judge "ja": already read at -:1`) {
					t.Errorf("stderr does not name both places: %s", stderr)
				}
			case !strings.Contains(stderr, `-:3: record "2": this failed record names no judge model, and model "m" has records of several judges in b ("ja", "jb")`) || !strings.Contains(stderr, "judge_model"):
				t.Errorf("stderr does not name the record and what to do: %s", stderr)
			}
		})
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
	js := newJudges()
	for _, k := range []answerer{{bench: "b", model: "m", run: ""}, {bench: "b", model: "n", run: ""}} {
		js.of[k] = []string{"ja"}
	}
	js.of[answerer{bench: "b", model: "m", run: "r2"}] = []string{"ja", "jb"}
	got := []string{js.label("b", "m", "", "ja"), js.label("b", "m", "r2", "jb"), js.label("b", "n", "", "ja"), js.label("c", "m", "", "ja")}
	if want := []string{"m", "m (judge jb)", "n", "m"}; !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}
