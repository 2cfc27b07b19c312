package lifbench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// The explorer sums a judgement's points by capability and names each
// point lost with what it checks; a total the official early return left
// at 0 says so.
func TestExploreFindings(t *testing.T) {
	for _, tt := range []struct {
		judgement string
		want      []string
	}{
		{`{"score":0.75,"rubric":"lifbench-official/1","points":[{"name":"format","score":1,"max":1,"capabilities":["Format"]},{"name":"correct","score":0.5,"max":2,"capabilities":["Recog"]},{"name":"ori","score":1,"max":1,"capabilities":["Ori"]}]}`,
			[]string{"{Format [1 of 1 points]}", "{Recog [1 of 2 points correct: 1 of 2 lost (the element asked for", "{Ori [1 of 1 points]}"}},
		{`{"score":0,"rubric":"lifbench-official/1","points":[{"name":"format","score":1,"max":1,"capabilities":["Format"]},{"name":"correct","score":0,"max":2,"capabilities":["Recog"]},{"name":"ori","score":0,"max":1,"capabilities":["Ori"]}]}`,
			[]string{"{Recog [0 of 2 points correct: 2 of 2 lost", "{total [0, although points were earned"}},
	} {
		rec, err := record.Parse([]byte(`{"id":"a","bench":"lifbench","task":"single_query_id","judgement":` + tt.judgement + `}`))
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(exploreHooks.Findings(rec))
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("findings %s lack %q", got, w)
			}
		}
	}
}

// Every point of every task's rubric says what it checks.
func TestEveryPointHasARule(t *testing.T) {
	for _, task := range Tasks {
		for _, p := range task.Points {
			if pointRules[task.Name][p.Name] == "" {
				t.Errorf("%s: point %s has no rule in pointRules", task.Name, p.Name)
			}
		}
	}
}
