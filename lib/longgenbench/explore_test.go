package longgenbench

import (
	"fmt"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// A check is placed in the rows by its type and the tenth of the output
// its entry lies in, as the aggregator counts it, and says what it asked.
func TestExploreHooks(t *testing.T) {
	rec, err := record.Parse([]byte(`{"id":"p#single-22","parent":"p","bench":"longgenbench","gold":{"check":"single","entry":22,"event":"a birthday","label":"Week"},
		"entry":{"found":true,"text":"Week 22: a birthday."},"split":{"number":52}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(exploreHooks.Keys(rec)), "map[position:[0.4] position_range:[40-50%] type:[single]]"; got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(exploreHooks.Findings(rec)), `[{the check (single) [Week 22 of the output mentions "a birthday"]} {the entry found in the reply [yes]}]`; got != want {
		t.Errorf("findings %s, want %s", got, want)
	}
}
