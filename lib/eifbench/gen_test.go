package eifbench

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/testbin"
)

// officialSample is ../shared/reference/eifbench/party_first15.json relative
// to the repo root, or "" when it is absent.
func officialSample() string {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "reference", "eifbench", "party_first15.json")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

func collect(t *testing.T, opt GenOptions) []*record.Record {
	t.Helper()
	var recs []*record.Record
	tasks, err := LoadTasks(opt)
	if err == nil {
		err = EmitTasks(tasks, func(r *record.Record) error { recs = append(recs, r); return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestSampleSet(t *testing.T) {
	recs := collect(t, GenOptions{})
	seen := map[string]int{}
	for _, r := range recs {
		var g map[string]string
		if err := r.Decode("group", &g); err != nil {
			t.Fatal(err)
		}
		seen[g["subset"]]++
		task, err := taskFromItem(r)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(task.Subs); n < 6 || n > 12 {
			t.Errorf("%s: %d sub-instructions, want 6–12", r.ID(), n)
		}
		for _, s := range task.Subs {
			if len(s.Constraints) < 3 {
				t.Errorf("%s %s: %d constraints, want several", r.ID(), s.Key, len(s.Constraints))
			}
		}
		if g["sub_instructions"] != strconv.Itoa(len(task.Subs)) || g["constraints"] != strconv.Itoa(task.Constraints()) {
			t.Errorf("%s: group %v does not match the task", r.ID(), g)
		}
		if r.String("bench") != Bench || r.String("task") != g["subset"] {
			t.Errorf("%s: bench %q task %q", r.ID(), r.String("bench"), r.String("task"))
		}
	}
	for _, s := range Subsets {
		if seen[s] == 0 {
			t.Errorf("the sample set has no %s task", s)
		}
	}
	if got := collect(t, GenOptions{Subset: "party"}); len(got) != seen[MultiParty] {
		t.Errorf("--subset party kept %d tasks, want %d", len(got), seen[MultiParty])
	}
}

func TestOfficialImport(t *testing.T) {
	// The reference copy is named party_first15.json: "party" tells the subset.
	recs := collect(t, GenOptions{Official: []string{testbin.Reference(t, "eifbench", "party_first15.json")}})
	if len(recs) != 15 {
		t.Fatalf("%d tasks, want 15", len(recs))
	}
	first, err := taskFromItem(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != "eifbench-multi_party-0" || first.Subset != MultiParty || len(first.Subs) != 7 || first.Constraints() != 65 {
		t.Errorf("first task: id %s subset %s, %d subs, %d constraints; want eifbench-multi_party-0, multi_party, 7, 65", first.ID, first.Subset, len(first.Subs), first.Constraints())
	}
	if !strings.HasPrefix(first.Subs[0].Instruction, "分析张阿姨") || first.Subs[0].Key != "sub_instruction_0" {
		t.Errorf("first sub-instruction: %+v", first.Subs[0])
	}
	ids := map[string]bool{}
	total := 0
	for _, r := range recs {
		ids[r.ID()] = true
		task, _ := taskFromItem(r)
		total += task.Constraints()
	}
	if ids["eifbench-multi_party-3"] {
		t.Error("main_id 3 is missing from the official file but was emitted")
	}
	if total != 1125 {
		t.Errorf("%d constraints in the first 15 tasks, want 1125", total)
	}
}

func TestParseTasks(t *testing.T) {
	tests := []struct {
		name, json, subset, err string
		keys                    []string
	}{
		{name: "numeric order", subset: PlainText,
			json: `[{"main_id":7,"input":"x","sub_instructions":{"sub_instruction_10":{"instruction":"c","scoring_questions":["q"]},"sub_instruction_2":{"instruction":"b","scoring_questions":[]},"sub_instruction_1":{"instruction":"a","scoring_questions":["q"]}}}]`,
			keys: []string{"sub_instruction_1", "sub_instruction_2", "sub_instruction_10"}},
		{name: "subset from record", json: `[{"main_id":1,"subset":"dyadic","input":"x","sub_instructions":{"s_0":{"instruction":"a","scoring_questions":["q"]}}}]`, keys: []string{"s_0"}},
		{name: "no main_id", subset: Dyadic, json: `[{"input":"x","sub_instructions":{"s_0":{"instruction":"a"}}}]`, err: "no main_id"},
		{name: "no subs", subset: Dyadic, json: `[{"main_id":1,"input":"x","sub_instructions":{}}]`, err: "no sub_instructions"},
		{name: "unnumbered key", subset: Dyadic, json: `[{"main_id":1,"sub_instructions":{"first":{"instruction":"a"}}}]`, err: "has no number"},
		{name: "empty instruction", subset: Dyadic, json: `[{"main_id":1,"sub_instructions":{"s_1":{"instruction":" "}}}]`, err: "has no instruction"},
		{name: "no subset", json: `[{"main_id":1,"sub_instructions":{"s_1":{"instruction":"a"}}}]`, err: "unknown EifBench subset"},
		{name: "not an array", subset: Dyadic, json: `{"main_id":1}`, err: "not a JSON array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tasks, err := ParseTasks([]byte(tc.json), "test.json", tc.subset)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, s := range tasks[0].Subs {
				keys = append(keys, s.Key)
			}
			if strings.Join(keys, ",") != strings.Join(tc.keys, ",") {
				t.Errorf("keys %v, want %v", keys, tc.keys)
			}
		})
	}
}

func TestSubsetFromName(t *testing.T) {
	for name, want := range map[string]string{
		"data/sorted_party100.json":    MultiParty,
		"sorted_dialogue450.json":      Dyadic,
		"/x/sorted_single450.json":     PlainText,
		"/x/unknown.json":              "",
		"party_first15.json":           MultiParty,
		"SORTED_DIALOGUE450.JSON.json": Dyadic,
	} {
		if got, _ := subsetFromName(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if _, err := LoadTasks(GenOptions{Official: []string{"/x/unknown.json"}}); err == nil || !strings.Contains(err.Error(), "--subset") {
		t.Errorf("an official file of unknown subset: err %v, want a hint about --subset", err)
	}
}

var update = flag.Bool("update", false, "rewrite samples/eifbench/items.jsonl from the embedded sample set")

// samples/eifbench/items.jsonl is the demo input: what gen-context eifbench
// emits from the embedded sample set.
func TestSampleItemsFile(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "samples", "eifbench", "items.jsonl")
	var b []byte
	for _, r := range collect(t, GenOptions{}) {
		b = append(r.AppendJSON(b), '\n')
	}
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(b) {
		t.Errorf("%s is stale: run go test ./lib/eifbench -run TestSampleItemsFile -update", path)
	}
}
