package longins

import (
	"fmt"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// The explorer sets the question numbers a reply named against the gold's
// wrong answers, places the exam at their depths and cuts its excerpt
// around them.
func TestExploreHooks(t *testing.T) {
	rec, err := record.Parse([]byte(`{"id":"a","bench":"longins","gold":{"wrong":[3,15,40],"depths":[1,7,7],"questions":50},
		"judgement":{"score":0.4,"detail":{"predicted":["3","9"],"true_positives":1,"gold_wrong":3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(exploreHooks.Findings(rec)), "[{answered wrongly in the exam (3) [3 15 40]} {named by the model (2) [3 9]} {found (1) [3]} {missed (2) [15 40]} {named, though answered right (1) [9]}]"; got != want {
		t.Errorf("findings %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(exploreHooks.Keys(rec)), "map[depth:[1 7]]"; got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(exploreHooks.Focus(rec)), "[[3: [15: [40:]"; got != want {
		t.Errorf("focus %s, want %s", got, want)
	}
}
