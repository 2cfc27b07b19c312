package ifscale

import (
	"fmt"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// The explorer lists a reply's keywords by the class the analysis gave
// them.
func TestExploreFindings(t *testing.T) {
	rec, err := record.Parse([]byte(`{"id":"a","bench":"ifscale","judgement":{"score":0.5,"detail":{"n":4,"exact":2,"modification":1,"omission":1,"keywords":[
		{"keyword":"deadline","position":1,"class":"exact"},{"keyword":"fiber","position":2,"class":"modification"},
		{"keyword":"solar","position":3,"class":"omission"},{"keyword":"channel","position":4,"class":"exact"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(exploreHooks.Findings(rec))
	if want := "[{found exactly (2) [deadline channel]} {modified: another form of the word (1) [fiber]} {missing (1) [solar]}]"; got != want {
		t.Errorf("findings %s, want %s", got, want)
	}
}
