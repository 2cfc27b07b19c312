package eifbench

import (
	"fmt"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// A check is placed by its sub-instruction's constraints and says which
// constraint of which sub-instruction was judged.
func TestExploreHooks(t *testing.T) {
	rec, err := record.Parse([]byte(`{"id":"t#1.3","bench":"eifbench","group":{"sub_constraints":4},
		"gold":{"sub":1,"subs":7,"instruction":"Write a notice.","constraint":"Begin with a title in capitals.","constraint_index":3,"sub_constraints":4,"constraints":28}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(exploreHooks.Keys(rec)), "map[constraints_per_sub:[4]]"; got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(exploreHooks.Findings(rec)), "[{sub-instruction 1 of 7 [Write a notice.]} {constraint 3 of 4 judged [Begin with a title in capitals.]}]"; got != want {
		t.Errorf("findings %s, want %s", got, want)
	}
}
