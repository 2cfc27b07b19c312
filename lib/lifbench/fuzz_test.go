package lifbench

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Any reply, through every rubric (the official scorer's Python emulation,
// eval of list literals and JSON included), scores in [0, 1] or fails with an
// error; never a panic, never NaN.
func FuzzScore(f *testing.F) {
	for _, s := range []string{"bravo two.", "", `[["ID1", "T one"], ["ID3", "T three"]]`, `[["ID1","T one"]`, "['a', \"b\"]", `{"a": [1, 2}`, "None", "1e999", "\\u00e9 \\x", "#Topic# Sentence A here.", "[[[[[[[[[[", "'''", "[NaN, Infinity]", `[["ID1", 0x1f], ("T one",)]`, `[["\N{BOM}ID1", ...]]`, `["\N{unknown}"]`, "Ça va, très bien.", `[["ID" + "1", id], ["ID3", "T" + " three"]]`, `[["ID1", expression]]`, `["bravo two.", ` + strings.Repeat("7", 4301) + `]`, `[["ID1", 0x` + strings.Repeat("f", 3600) + `]]`} {
		f.Add(s)
	}
	topic, _ := json.Marshal(Label{{Type: "#Topic#", Items: []KeySentence{{"Sentence A here.", 1, 3, true}}}})
	t1, id1 := "T one", "ID1"
	golds := map[string]*Gold{
		List:     listGold(Param{Element: "bravo two.", Elements: []string{"alpha one.", "bravo two."}}),
		OneDoc:   {Scenario: OneDoc, Param: Param{}, Label: topic},
		MultiDoc: {Scenario: MultiDoc, Param: Param{InfoKeys: "id title", DupInfos: [][]map[string]*string{{{"id": &id1, "title": &t1}}}}, Label: json.RawMessage("3"), InputStart: "Archive:\n", InputEnd: "\n\nInstruction: "},
	}
	f.Fuzz(func(t *testing.T, reply string) {
		for _, task := range Tasks {
			g := golds[task.Scenario]
			if g == nil {
				continue
			}
			for _, strict := range []bool{false, true} {
				j, err := Score(task, listPrompt(), reply, g, strict)
				if err != nil {
					continue
				}
				if math.IsNaN(j.Score) || j.Score < 0 || j.Score > 1+1e-9 {
					t.Fatalf("task %s strict=%v reply %q: score %v", task.Name, strict, reply, j.Score)
				}
			}
		}
	})
}
