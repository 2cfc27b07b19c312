package lifbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/testbin"
)

func TestExpandRequestShape(t *testing.T) {
	reqs := expandAll(t, genContexts(t, "1k", 0), expand.Options{}, "")
	maxTok := map[string]float64{}
	for _, r := range reqs {
		var req struct {
			Messages    []map[string]string `json:"messages"`
			MaxTokens   float64             `json:"max_tokens"`
			Temperature float64             `json:"temperature"`
		}
		if err := r.Decode("request", &req); err != nil {
			t.Fatalf("%s: %v", r.ID(), err)
		}
		if len(req.Messages) != 1 || req.Messages[0]["role"] != "user" || req.Temperature != 0 {
			t.Fatalf("%s: request %+v", r.ID(), req)
		}
		maxTok[r.String("task")] = req.MaxTokens
		var g map[string]string
		r.Decode("group", &g)
		if g["length"] != "ctx1k" || g["expression"] == "" || g["variable"] == "" || g["scenario"] == "" {
			t.Errorf("%s: group %v", r.ID(), g)
		}
		if !r.Has("gold") || r.Has("context") {
			t.Errorf("%s: want gold and no context", r.ID())
		}
	}
	for _, tk := range Tasks {
		if maxTok[tk.Name] != float64(tk.MaxTokens) {
			t.Errorf("%s: max_tokens %v, want %d", tk.Name, maxTok[tk.Name], tk.MaxTokens)
		}
	}
	if maxTok["single_query_id"] != 100 || maxTok["find_dup_text"] != 4096 || maxTok["repeat"] != 512 {
		t.Errorf("official limits: %v", maxTok)
	}
}

func TestExpandBadInput(t *testing.T) {
	e, _ := NewExpander(expand.Options{}, "")
	for line, reason := range map[string]string{
		`{"id":"c1","bench":"lifbench"}`: `no "context"`,
		`{"id":"c2","bench":"lifbench","context":{"scenario":"list","text":"1. a","elements":["a"]}}`:   "has 1 elements",
		`{"id":"c3","bench":"lifbench","context":{"scenario":"poem","text":"x"}}`:                       `scenario "poem"`,
		`{"id":"c4","bench":"lifbench","context":{"scenario":"multidoc","text":"x","docs":[{},{},{}]}}`: "no duplicated texts",
	} {
		rec, _ := record.Parse([]byte(line))
		err := e.Expand(rec, func(*record.Record) error { return nil })
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: want %q, got %v", rec.ID(), reason, err)
		}
	}
}

// The official tasks.json expands to the official 467 prompts per length,
// laid out as the official prompts, and a solver that knows those templates
// earns full marks from the rubric.
func TestOfficialTemplates(t *testing.T) {
	path := testbin.Reference(t, "lifbench", "tasks.json")
	reqs := expandAll(t, genContexts(t, "1k", 1), expand.Options{}, path)
	if len(reqs) != 467 {
		t.Errorf("%d prompts, want 467", len(reqs))
	}
	tpl, err := LoadTemplates(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		p, _ := promptOf(r)
		if r.String("task") == "single_query_id" && !strings.Contains(p, "List to be retrieved:\n1. ") {
			t.Fatalf("list prompt not in the official layout:\n%.300s", p)
		}
		task, _ := TaskByName(r.String("task"))
		reply, ok := Solver{Templates: tpl}.Solve(simRequest(t, r), sim.Params{Skill: 1, Rand: idRand(r.ID())})
		if !ok {
			t.Fatalf("%s: not recognised: %.200s", r.ID(), p[len(p)-200:])
		}
		var g Gold
		r.Decode("gold", &g)
		j, err := Score(task, p, reply, &g, false)
		if err != nil {
			t.Fatal(err)
		}
		if j.Score < 1-1e-9 && !seen[task.Name] {
			seen[task.Name] = true
			t.Errorf("%s: %.3f for %q (%+v)", r.ID(), j.Score, trunc(reply), j.Points)
		}
	}
}

func TestImportOfficialContexts(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"list_input.json": `{"info": ["e1","e2","e3","e4","e5"], "inputs": [{"input_text": "1. e1\n2. e2\n3. e3", "label": 3, "length": 3}]}`,
		"multidoc_input.json": `{"info": {"doc_list": [{"iD2":"u1","id":"i1","title":39272756,"text":"t","date":"2020-01-01","source":"news"},
			{"iD2":"u2","id":"i2","text":"t","date":"2020-01-02"},{"iD2":"u3","id":"i3","text":"x","date":"2020-01-03"}],
			"dupli_idxs": [[0,1],[2,5]]}, "inputs": [{"input_text": "docs…", "label": 3, "length": 6}]}`,
		"onedoc_input.json": `{"info": [], "inputs": [{"input_text": "First plain sentence of text. <#Topic#-1>A topic.<#Topic#> Another plain sentence here.", "label": {"#Topic#": [["A topic.", 0, 1, true]]}, "length": 13}]}`,
	}
	want := map[string]string{"list_input.json": "lifbench/official/list/4k", "multidoc_input.json": "lifbench/official/multidoc/8k", "onedoc_input.json": "lifbench/official/onedoc/16k"}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		var got []*record.Record
		if err := ImportOfficial(p, GenOptions{}, func(r *record.Record) error { got = append(got, r); return nil }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 1 || got[0].ID() != want[name] {
			t.Fatalf("%s: got %d records, id %s", name, len(got), got[0].ID())
		}
		var c Context
		got[0].Decode("context", &c)
		switch c.Scenario {
		case List:
			if len(c.Elements) != 3 || c.Elements[2] != "e3" {
				t.Errorf("list elements %v", c.Elements)
			}
		case MultiDoc:
			if len(c.Docs) != 3 || *c.Docs[0].Title != "39272756" || c.Docs[1].Title != nil || len(c.DupGroups) != 1 {
				t.Errorf("docs %+v groups %v", c.Docs, c.DupGroups)
			}
		case OneDoc:
			if len(c.Label.Get("#Topic#")) != 1 || len(c.Plain) != 2 {
				t.Errorf("label %+v plain %v", c.Label, c.Plain)
			}
		}
	}
}

// Records that failed at inference score 0 under --failed official (the
// official ApiInference/LLMApi.get returns "" after its tries, and every
// EvaluateFunc rubric scores "" 0), are left out under exclude, and are
// counted in n_failed either way.
func TestAggregateCountsFailures(t *testing.T) {
	for _, tc := range []struct {
		policy   string
		ars, ifp float64
		n        int
	}{
		{aggregate.FailedOfficial, 0.5, 0.5, 3},
		{aggregate.FailedExclude, 0.75, 0.75, 2},
	} {
		a := NewAggregator(aggregate.Options{Decimals: 3, Failed: tc.policy})
		add := func(line string) {
			t.Helper()
			rec, err := record.Parse([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Add(rec); err != nil {
				t.Fatal(err)
			}
		}
		j := func(score float64) string {
			b, _ := json.Marshal(record.Judgement{Score: score, Rubric: RubricOfficial, Points: []record.Point{{Name: "correct", Score: score, Max: 3}, {Name: "format", Score: score, Max: 2}}})
			return string(b)
		}
		add(`{"id":"a","bench":"lifbench","task":"qa","model":"m","group":{"length":"4k","expression":"0","variable":"0"},"judgement":` + j(1) + `}`)
		add(`{"id":"b","bench":"lifbench","task":"qa","model":"m","group":{"length":"4k","expression":"1","variable":"0"},"response":{"text":"x","server_truncated":true},"judgement":` + j(0.5) + `}`)
		add(`{"id":"c","bench":"lifbench","task":"qa","model":"m","group":{"length":"4k","expression":"1","variable":"1"},"error":{"stage":"infer-batch","kind":"http","message":"500"}}`)
		res, err := a.Result()
		if err != nil {
			t.Fatal(err)
		}
		v, ok := find(res.Rows, "m", "ARS", map[string]string{"task": "overall", "length": "all"})
		if !ok || !near(v, tc.ars) {
			t.Errorf("--failed %s: overall ARS %v, want %v", tc.policy, v, tc.ars)
		}
		for _, r := range res.Rows {
			// n_truncated counts what n counts: samples, except IFS's
			// tasks or perspectives, every one of which holds the cut
			// sample here (one task).
			cut := 1
			if r.Metric == "IFS" {
				cut = r.N
			}
			if r.NFailed != 1 || r.NTruncated != cut || r.NTruncated > r.N || r.Unit != "ratio" {
				t.Errorf("--failed %s: row %+v: want n_failed 1, n_truncated %d, unit ratio", tc.policy, r, cut)
			}
			if r.Dims["length"] == "4k" && r.Nums["length_tokens"] != 3*1024 {
				t.Errorf("row %+v: want length_tokens 3072 for 4k", r)
			}
			if r.Metric == "ARS" && r.Dims["task"] == "overall" && r.N != tc.n {
				t.Errorf("--failed %s: overall row %+v: want n %d", tc.policy, r, tc.n)
			}
		}
		if v, _ := find(res.Rows, "m", "IFP", map[string]string{"capability": "Logit", "length": "all"}); !near(v, tc.ifp) {
			t.Errorf("--failed %s: IFP Logit %v, want %v", tc.policy, v, tc.ifp)
		}
	}
	a := NewAggregator(aggregate.Options{Decimals: 3})
	bad, _ := record.Parse([]byte(`{"id":"d","bench":"lifbench","task":"nope","judgement":{}}`))
	if err := a.Add(bad); err == nil || !strings.Contains(err.Error(), `unknown lifbench task "nope"`) {
		t.Errorf("unknown task: %v", err)
	}
}
