package eifbench

import (
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/split"
)

func TestSplitAnswers(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		n     int
		want  []string // "" = not found
		via   string
	}{
		{"markers", "start_sub_instruction_1\nalpha\nend_sub_instruction_1\nstart_sub_instruction_2\nbeta\ngamma\nend_sub_instruction_2\n", 2, []string{"alpha", "beta\ngamma"}, viaMarkers},
		{"decorated markers", "**start_sub_instruction_1**\nalpha\n**end_sub_instruction_1**\n<start_sub_instruction_2>\n- beta\n</end_sub_instruction_2>", 2, []string{"alpha", "- beta"}, viaMarkers},
		{"inline markers", "start_sub_instruction_1: alpha end_sub_instruction_1 start_sub_instruction_2 beta end_sub_instruction_2", 2, []string{"alpha", "beta"}, viaMarkers},
		{"unclosed", "start_sub_instruction_1\nalpha\nstart_sub_instruction_2\nbeta", 2, []string{"alpha", "beta"}, viaMarkers},
		{"one missing", "start_sub_instruction_1\nalpha\nend_sub_instruction_1\nstart_sub_instruction_3\ngamma\nend_sub_instruction_3", 3, []string{"alpha", "", "gamma"}, viaMarkers},
		{"empty answer", "start_sub_instruction_1\n\nend_sub_instruction_1\nstart_sub_instruction_2\nbeta\nend_sub_instruction_2", 2, []string{"", "beta"}, viaMarkers},
		{"only end markers", "alpha\nend_sub_instruction_1\nbeta\nend_sub_instruction_2", 2, []string{"alpha", "beta"}, viaMarkers},
		{"zero-based markers", "start_sub_instruction_0\nalpha\nend_sub_instruction_0\nstart_sub_instruction_1\nbeta\nend_sub_instruction_1", 2, []string{"alpha", "beta"}, viaMarkers},
		{"case", "START_SUB_INSTRUCTION_1\nalpha\nEND_SUB_INSTRUCTION_1", 1, []string{"alpha"}, viaMarkers},
		{"official-style headings", "SUB_INSTRUCTION_1:\nalpha\n\nSUB_INSTRUCTION_2:\nbeta", 2, []string{"alpha", "beta"}, viaHeading},
		{"zero-based headings", "sub_instruction_0:\nalpha\nsub_instruction_1:\nbeta", 2, []string{"alpha", "beta"}, viaHeading},
		{"prose headings", "## Sub-instruction 1\nalpha\n\n**Sub-instruction 2:** beta\n\nSub instruction 3. gamma", 3, []string{"alpha", "beta", "gamma"}, viaHeading},
		{"chinese headings", "子指令1：甲\n子任务2：乙", 2, []string{"甲", "乙"}, viaHeading},
		{"numbered sections", "1. alpha\n2. beta\n3. gamma", 3, []string{"alpha", "beta", "gamma"}, viaNumber},
		{"styled numbers beat inner lists", "### 1. Notice\n1. first\n2. second\n### 2. List\n- x", 2, []string{"Notice\n1. first\n2. second", "List\n- x"}, viaNumber},
		{"indented inner lists", "1. Notice\n   1. first\n   2. second\n2. List", 2, []string{"Notice\n   1. first\n   2. second", "List"}, viaNumber},
		{"no structure", "I cannot help with that.", 2, []string{"", ""}, ""},
		{"empty", "", 1, []string{""}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitAnswers(tc.reply, tc.n)
			if len(got) != tc.n {
				t.Fatalf("%d answers, want %d", len(got), tc.n)
			}
			for i, a := range got {
				if a.Found != (tc.want[i] != "") || a.Text != tc.want[i] {
					t.Errorf("answer %d = %+v, want %q", i+1, a, tc.want[i])
				}
				if a.Found && a.Via != tc.via {
					t.Errorf("answer %d found via %s, want %s", i+1, a.Via, tc.via)
				}
			}
		})
	}
}

// Markers that are misnumbered, duplicated or out of order do not say which
// answer is which: no answer is cut out, and the judge gets the whole reply,
// as the official judge always does (6_evaluation.py get_payload puts the
// whole output in every judge prompt).
func TestSplitDistrustsMarkers(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		n           int
		want        string
	}{
		{"beyond n", "start_sub_instruction_1\na\nend_sub_instruction_1\nstart_sub_instruction_3\nc\nend_sub_instruction_3", 2, MarkersMisnumbered},
		{"start twice", "start_sub_instruction_1\na\nstart_sub_instruction_1\nb", 2, MarkersDuplicated},
		{"end twice", "start_sub_instruction_1\na\nend_sub_instruction_1\nstart_sub_instruction_2\nb\nend_sub_instruction_1", 2, MarkersDuplicated},
		{"out of order", "start_sub_instruction_2\nb\nend_sub_instruction_2\nstart_sub_instruction_1\na\nend_sub_instruction_1", 2, MarkersOutOfOrder},
		{"in order with a gap is fine", "start_sub_instruction_1\na\nstart_sub_instruction_3\nc", 3, ""},
		{"zero-based in order is fine", "start_sub_instruction_0\na\nstart_sub_instruction_1\nb", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, a := range SplitAnswers(tc.reply, tc.n) {
				if a.Markers != tc.want || (tc.want != "" && a.Found) {
					t.Errorf("answer %d = %+v, want markers %q and found only when trusted", i+1, a, tc.want)
				}
			}
		})
	}
	req, _ := pipelineRequest(t)
	reply := "start_sub_instruction_2\nb\nstart_sub_instruction_1\na"
	req.Set("response", record.Response{Text: reply, ServerTruncated: true})
	for _, k := range splitAll(t, req) {
		var seg segment
		k.Decode("segment", &seg)
		if seg.Found || seg.Reply != reply || seg.Markers != MarkersOutOfOrder {
			t.Fatalf("child %s: segment %+v, want the whole reply and markers %q", k.ID(), seg, MarkersOutOfOrder)
		}
	}
}

// pipelineRequest is the expand-templates output for the first sample task.
func pipelineRequest(t *testing.T) (*record.Record, *Task) {
	t.Helper()
	item := collect(t, GenOptions{})[0]
	task, _ := taskFromItem(item)
	return expandOne(t, expand.Options{}, item)[0], task
}

func splitAll(t *testing.T, rec *record.Record) []*record.Record {
	t.Helper()
	var out []*record.Record
	if err := split.KeepResponseMeta(Split)(rec, func(r *record.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSplitChildren(t *testing.T) {
	req, task := pipelineRequest(t)
	reply := "start_sub_instruction_1\nTHE NOTICE\nend_sub_instruction_1\n"
	req.Set("model", "m")
	req.Set("response", record.Response{Text: reply, ServerTruncated: true})
	kids := splitAll(t, req)
	if !aggregate.ServerTruncated(kids[0]) {
		t.Error("the child does not say that the server cut its parent's prompt")
	}
	if len(kids) != task.Constraints() {
		t.Fatalf("%d children, want one per constraint (%d)", len(kids), task.Constraints())
	}
	first, last := kids[0], kids[len(kids)-1]
	if first.ID() != req.ID()+"#1.1" || first.String("parent") != req.ID() || first.String("model") != "m" {
		t.Errorf("first child: id %s parent %s model %s", first.ID(), first.String("parent"), first.String("model"))
	}
	for _, k := range []string{"request", "context"} {
		if first.Has(k) {
			t.Errorf("child keeps the parent's %s", k)
		}
	}
	var meta map[string]any
	if first.Decode("response", &meta); meta["text"] != nil {
		t.Errorf("child keeps the reply's text in response: %v", meta)
	}
	var g childGold
	var seg segment
	first.Decode("gold", &g)
	first.Decode("segment", &seg)
	if g.Constraint != task.Subs[0].Constraints[0] || g.Input != task.Input || g.Sub != 1 || g.SubConstraints != len(task.Subs[0].Constraints) || g.Constraints != task.Constraints() {
		t.Errorf("first child's gold: %+v", g)
	}
	if !seg.Found || seg.Text != "THE NOTICE" || seg.Reply != "" {
		t.Errorf("first child's segment: %+v", seg)
	}
	last.Decode("segment", &seg)
	if seg.Found || seg.Reply != reply {
		t.Errorf("a missing answer must carry the whole reply: %+v", seg)
	}
	var group map[string]string
	last.Decode("group", &group)
	if group["sub_constraints"] != "4" || group["subset"] != PlainText {
		t.Errorf("last child's group: %v", group)
	}
}

func TestSplitFailedInference(t *testing.T) {
	req, task := pipelineRequest(t)
	req.Fail(&record.Error{Stage: "infer-batch", Kind: "http", Message: "503"})
	kids := splitAll(t, req)
	if len(kids) != task.Constraints() {
		t.Fatalf("%d children, want %d", len(kids), task.Constraints())
	}
	for _, k := range kids {
		if !k.Errored() || k.Has("segment") {
			t.Fatalf("child %s of a failed record: error %v, segment %v", k.ID(), k.Errored(), k.Has("segment"))
		}
	}
}

func TestSplitNoResponse(t *testing.T) {
	req, _ := pipelineRequest(t)
	err := Split(req, func(*record.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "infer-batch") {
		t.Errorf("err %v, want a hint to run infer-batch", err)
	}
}
