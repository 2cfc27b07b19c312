package lifbench

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

var testList = []string{"alpha one.", "bravo two.", "charlie three.", "delta four.", "echo five.", "café au lait."}

func listPrompt() string {
	var sb strings.Builder
	sb.WriteString("Intro text.\n\nNumbered list:\n")
	for i, e := range testList {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(listUnit(i, e, false))
	}
	sb.WriteString("\n\nInstruction: do it\n")
	return sb.String()
}

func listGold(p Param) *Gold {
	return &Gold{Scenario: List, Param: p, Label: json.RawMessage("6"), InputStart: "Numbered list:\n", InputEnd: "\n\nInstruction: "}
}

func pointScore(j *record.Judgement, name string) float64 {
	for _, p := range j.Points {
		if p.Name == name {
			return p.Score * p.Max
		}
	}
	return math.NaN()
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Hand-computed cases of the official rules and their quirks.
func TestRubricCases(t *testing.T) {
	topic := Label{{Type: "#Topic#", Items: []KeySentence{{"Sentence A here.", 1, 3, true}, {"Sentence B here.", 2, 9, true}}},
		{Type: "@argument@", Items: []KeySentence{{"Decoy C here.", 1, 5, false}}}}
	lab, _ := json.Marshal(topic)
	one := func(p Param) *Gold { return &Gold{Scenario: OneDoc, Param: p, Label: lab} }
	cases := []struct {
		name, task, out string
		g               *Gold
		official        float64
		strict          float64
		point           string
		pointRaw        float64
	}{
		{"exact element", "single_query_id", "bravo two.", listGold(Param{Element: "bravo two."}), 1, 1, "format", 1},
		// No element in the reply: the official scorer returns before its
		// total, leaving 0 although the length earned format 0.2.
		{"early return", "single_query_id", "zzzzzzzzzz", listGold(Param{Element: "bravo two."}), 0, 0.05, "format", 0.2},
		{"two elements", "single_query_id", "alpha one. bravo two.", listGold(Param{Element: "bravo two."}), 0.75, 0.75, "ori", 1},
		{"offset next", "offset_query_id", "charlie three.", listGold(Param{Element: "bravo two.", PostElement: "charlie three.", Bias: 1}), 1, 1, "correct", 2},
		{"offset wrong far", "offset_query_id", "alpha one. charlie thre", listGold(Param{Element: "bravo two.", PostElement: "charlie three.", Bias: 1}), 0.325, 0.325, "format", 0.3},
		{"blur after", "blur_offset_query_id", "echo five.", listGold(Param{ID: 2, Bias: 1}), 1, 1, "position", 3},
		{"blur anchor itself", "blur_offset_query_id", "bravo two.", listGold(Param{ID: 2, Bias: 1}), 0.6, 0.6, "position", 1},
		{"blur wrong side", "blur_offset_query_id", "echo five.", listGold(Param{ID: 2, Bias: -1}), 0.4, 0.4, "position", 0},
		// unicode_escape (judge_labels_equal_outputs) turns UTF-8 é into
		// mojibake, so "café" is not found; strict keeps the text …
		{"multi raw utf8", "multi_query_id", `["café au lait.", "bravo two."]`, listGold(Param{Elements: []string{"café au lait.", "bravo two."}}), 0.75, 1, "correct", 1.5},
		// … but the JSON escape \u00e9 decodes to it.
		{"multi escaped", "multi_query_id", `["caf\u00e9 au lait.", "bravo two."]`, listGold(Param{Elements: []string{"café au lait.", "bravo two."}}), 1, 1, "order", 2},
		{"multi wrong order", "multi_query_id", `["bravo two.", "alpha one."]`, listGold(Param{Elements: []string{"alpha one.", "bravo two."}}), 0.8, 0.8, "order", 0},
		{"multi not json", "multi_query_id", `alpha one., bravo two.`, listGold(Param{Elements: []string{"alpha one.", "bravo two."}}), 0.8, 0.8, "num", 3},
		// json.loads refuses an int of 4,301 digits on Python 3.10.7+: no
		// format point, and the count falls back to the elements found.
		{"multi 4301 digits", "multi_query_id", `["alpha one.", ` + strings.Repeat("7", 4301) + `]`, listGold(Param{Elements: []string{"alpha one.", "bravo two."}}), 0.35, 0.7, "format", 0},
		// A "yes" on a decoy sentence keeps 2 of 3 correctness points.
		{"qa decoy yes", "qa", "Yes", one(Param{Evidence: "Decoy C here.", Options: []string{"Yes", "No"}}), 0.8, 0.8, "correct", 2},
		{"qa true no", "qa", "No", one(Param{Evidence: "Sentence A here.", Options: []string{"Yes", "No"}}), 0.42, 0.42, "correct", 0.1},
		{"qa both", "qa", "Yes or No", one(Param{Evidence: "Sentence A here.", Options: []string{"Yes", "No"}}), 0.3, 0.3, "format", 1},
		// The repeat "ori" point is given even when nothing was copied.
		{"repeat nothing", "repeat", "nothing here", one(Param{Num: 1, Sep: "###"}), (1 + 0.5 + 4.0/3) / 14, (0.5 + 4.0/3) / 14, "ori", 1},
		{"repeat right", "repeat", "Sentence A here.=>#Topic#\nSentence B here.=>#Topic#", one(Param{Num: 2, Sep: "=>"}), 1, 1, "correct", 3},
		// Reversed ids: the official order point stays full.
		{"extract reversed", "extract", `["Sentence B here.", "Sentence A here."]`, one(Param{Type: "<#Topic#>"}), 1, 12.0 / 14, "correct", 4},
		{"extract with decoy", "extract", `["Sentence A here.", "Sentence B here.", "Decoy C here."]`, one(Param{Type: "<@argument@>"}), (4 + 4 + 2 + 0) / 14.0, (4 + 4 + 2 + 0) / 14.0, "correct", 0},
		{"extract summary empty", "extract", `[]`, one(Param{Type: "<|Summary|>"}), 1, 1, "ori", 2},
		{"extract summary none", "extract", `[]`, one(Param{Type: "<#Topic#>"}), 4.5 / 14, 4.5 / 14, "format", 4},
	}
	for _, c := range cases {
		task, _ := TaskByName(c.task)
		for _, strict := range []bool{false, true} {
			j, err := Score(task, listPrompt(), c.out, c.g, strict)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := c.official
			if strict {
				want = c.strict
			}
			if !near(j.Score, want) {
				t.Errorf("%s (strict %v): score %.5f, want %.5f; points %+v", c.name, strict, j.Score, want, j.Points)
			}
			// The point is the official rubric's; strict may differ where the totals do.
			if got := pointScore(j, c.point); !near(got, c.pointRaw) && !(strict && c.official != c.strict) {
				t.Errorf("%s (strict %v): %s = %.4f, want %.4f", c.name, strict, c.point, got, c.pointRaw)
			}
		}
	}
}

func multidocGold(t *testing.T, p Param) (*Gold, string) {
	t.Helper()
	prompt := "Head.\n\nArchive:\n==================== doc-1 ====================\ntext: same words.\nid: ID1\ntitle: T one\n\n" +
		"==================== doc-2 ====================\ntext: other words.\nid: ID2\n\n" +
		"==================== doc-3 ====================\ntext: same words.\nid: ID3\ntitle: T three\nsource: news\n\nInstruction: x. Write None for missing."
	return &Gold{Scenario: MultiDoc, Param: p, Label: json.RawMessage("3"), InputStart: "Archive:\n", InputEnd: "\n\nInstruction: "}, prompt
}

func TestMultiDocRubric(t *testing.T) {
	t1, t3 := "T one", "T three"
	id1, id3 := "ID1", "ID3"
	dup := Param{InfoKeys: "id title", DupInfos: [][]map[string]*string{{{"id": &id1, "title": &t1}, {"id": &id3, "title": &t3}}}}
	g, prompt := multidocGold(t, dup)
	task, _ := TaskByName("find_dup_text")
	for _, c := range []struct {
		out  string
		want float64
	}{
		{`[["ID1", "T one"], ["ID3", "T three"]]`, 1},
		// Compact JSON: the official `,"` removal breaks the eval step, so
		// the second halves of ori and correct are lost.
		{`[["ID1","T one"],["ID3","T three"]]`, (3 + 5 + 3 + 5) / 20.0},
		{``, 0},
	} {
		j, err := Score(task, prompt, c.out, g, false)
		if err != nil {
			t.Fatal(err)
		}
		if !near(j.Score, c.want) {
			t.Errorf("find_dup %q: %.4f, want %.4f (%+v)", c.out, j.Score, c.want, j.Points)
		}
	}
	lb := Param{RuleKey: "gbrw", Candidates: []string{"green", "blue", "red", "white"},
		DocKeys: [][]string{{"iD2", "id", "title", "text", "date"}, {"iD2", "id", "text", "date"}, {"iD2", "id", "title", "text", "date", "source"}}}
	g, prompt = multidocGold(t, lb)
	task, _ = TaskByName("batch_label")
	for _, c := range []struct {
		out  string
		want float64
	}{
		{`{"doc1": "blue", "doc2": "white", "doc3": "green"}`, 1},
		{`{"doc1": "green", "doc2": "white", "doc3": "green"}`, 13.0 / 14},
		// Not JSON as a whole: the longest {…} is parsed instead.
		{`Labels: {"doc1": "blue", "doc2": "white", "doc3": "green"} done`, 13.0 / 14},
		// A trailing comma: nothing parses, the docs are counted by "doc",
		// and the comma split no longer has one part per document.
		{`{"doc1": "blue", "doc2": "white", "doc3": "green",}`, 5.0 / 14},
	} {
		j, err := Score(task, prompt, c.out, g, false)
		if err != nil {
			t.Fatal(err)
		}
		if !near(j.Score, c.want) {
			t.Errorf("batch_label %q: %.4f, want %.4f (%+v)", c.out, j.Score, c.want, j.Points)
		}
	}
}

// find_dup_text's eval() step as the official scorer runs it (CPython
// 3.10.7+): names and "+" on strings are evaluated, and integers of more
// than 4,300 digits are refused by json.loads and eval() or make str()
// raise. Strict reads literals only, without the limit. Hand-computed
// (raw points: format 5, num_text 5, ori 6, correct 4) and checked against
// the official judge_multidoc_find_dup_text on CPython 3.10.13.
func TestFindDupOfficialEval(t *testing.T) {
	t1, t3 := "T one", "T three"
	id1, id3 := "ID1", "ID3"
	g, prompt := multidocGold(t, Param{InfoKeys: "id title", DupInfos: [][]map[string]*string{{{"id": &id1, "title": &t1}, {"id": &id3, "title": &t3}}}})
	task, _ := TaskByName("find_dup_text")
	big := strings.Repeat("7", 4301)
	hex := "0x" + strings.Repeat("f", 4000)
	for _, c := range []struct {
		name, out        string
		official, strict float64
	}{
		// No JSON line parses (format 3, num_text 5, correct 2.25 for the
		// three values written out); officially the eval'd row "ID" + "1"
		// gives ori 3 and one gold group co-grouped (correct + 1).
		{"concatenation", `[["ID" + "1", "T one"], ["ID3", "T three"]]`, 14.25 / 20, 10.25 / 20},
		// id is the builtin: three of four cells are in the prompt (ori
		// 2.25) and one gold row is named (correct + 0.25).
		{"builtin name", `[["ID1", "T one"], ["ID3", id]]`, 12.75 / 20, 10.25 / 20},
		{"undefined name", `[["ID1", "T one"], ["ID3", title]]`, 10.25 / 20, 10.25 / 20},
		// A decimal int of 4,301 digits: JSON and eval refuse it officially;
		// strict parses the line (format 5, ori 2.25 + 2.25, correct 2.5).
		{"4301 digits", `[["ID1", "T one"], ["ID3", ` + big + `]]`, 10.25 / 20, 17.0 / 20},
		// A hex int of 4,000 digits evaluates, but str() of it raises in
		// op_answer2map, which stops the official scorer: the match is
		// skipped (docs/lifbench.md).
		{"str raises", `[["ID1", "T one"], ["ID3", ` + hex + `]]`, 10.25 / 20, 12.75 / 20},
	} {
		for _, strict := range []bool{false, true} {
			j, err := Score(task, prompt, c.out, g, strict)
			if err != nil {
				t.Fatal(err)
			}
			want := c.official
			if strict {
				want = c.strict
			}
			if !near(j.Score, want) {
				t.Errorf("%s (strict %v): %.4f, want %.4f (%+v)", c.name, strict, j.Score, want, j.Points)
			}
		}
	}
}

func TestPythonSemantics(t *testing.T) {
	for in, want := range map[string]string{`a\nb`: "a\nb", `caf\u00e9`: "café", "café": "cafÃ©", `\x41\101\q`: `AA\q`} {
		if got, err := unicodeEscape(in); err != nil || got != want {
			t.Errorf("unicodeEscape(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := unicodeEscape(`bad \u12`); err == nil {
		t.Error("a truncated \\u escape must fail, as in Python")
	}
	if d := editDistance("café", "cafe"); d != 1 {
		t.Errorf("edit distance counts code points: got %d", d)
	}
	for in, want := range map[string]string{
		`[["a", None], ['b', "c"]]`: `[['a', None], ['b', 'c']]`,
		`[[1, 2.50], (3,)]`:         `[[1, 2.5], (3,)]`,
		`["x" "y"]`:                 `['xy']`,
	} {
		v, err := pyEval(in, pyLiteral)
		if err != nil || pyStr(v) != want {
			t.Errorf("pyEval(%q) = %v (%v), str %q; want %q", in, v, err, pyStr(v), want)
		}
	}
	for _, bad := range []string{`[[a]]`, `[[__import__("os")]]`, `[[2*3]]`, `[["a"b"]]`} {
		for _, py := range []pyRules{pyLiteral, pyOfficial} {
			if _, err := pyEval(bad, py); err == nil {
				t.Errorf("pyEval(%q, %+v) should refuse: no call, product or undefined name is evaluated", bad, py)
			}
		}
	}
	got, err := pyFormat(`{{"doc1": "{c[0]}"}} at {ids} in {c}`, map[string]any{"c": []string{"x", "y"}, "ids": []int{1, 5}})
	if err != nil || got != `{"doc1": "x"} at [1, 5] in ['x', 'y']` {
		t.Errorf("pyFormat = %q, %v", got, err)
	}
	if pyFloat(1e16) != "1e+16" || pyFloat(0.5) != "0.5" || pyFloat(3) != "3.0" || pyFloat(1e-5) != "1e-05" {
		t.Errorf("pyFloat: %s %s %s %s", pyFloat(1e16), pyFloat(0.5), pyFloat(3), pyFloat(1e-5))
	}
}

func TestScorerBadInput(t *testing.T) {
	s, err := NewScorer("official")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewScorer("lenient"); err == nil {
		t.Error("an unknown rubric must be refused")
	}
	for line, reason := range map[string]string{
		`{"id":"r1","bench":"lifbench","task":"summarize","gold":{},"response":{"text":"x"}}`:           `unknown lifbench task "summarize"`,
		`{"id":"r2","bench":"lifbench","task":"qa","response":{"text":"x"}}`:                            `no "gold"`,
		`{"id":"r3","bench":"lifbench","task":"qa","gold":{"scenario":"onedoc","param":{},"label":{}}}`: `no "response"`,
	} {
		rec, err := record.Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		// The CLI layer adds file, line and record id to the message.
		if _, err = s.Prepare(rec); err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: want %q, got %v", rec.ID(), reason, err)
		}
	}
}

// unquote is a faster JSON string decoder for long prompts; the JSON
// decoder is its oracle, and malformed literals must be refused, not crash
// judge (a lone surrogate at the end once sliced past the string).
func TestUnquote(t *testing.T) {
	for _, raw := range []string{
		`"plain"`, `"a\nb\"c\\d\/e\tf\rg\bh\fi"`, `"caf\u00e9"`, `"\ud83d\ude00"`,
		`"\ud800x"`, `"\ud800"`, `"a\ud83d"`, `"\ud83d\u00e9"`, `"\ude00\ud83d"`, `""`,
	} {
		var want string
		if err := record.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got, ok := unquote([]byte(raw)); !ok || got != want {
			t.Errorf("unquote(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, bad := range []string{`"\u12"`, `"\x41"`, `"abc\"`, `"abc`, `[]`, `"`} {
		if got, ok := unquote([]byte(bad)); ok {
			t.Errorf("unquote(%s) = %q, want a refusal", bad, got)
		}
	}
}

// Replies that make the official scorer raise (docs/lifbench.md, "Replies
// that make the official scorer raise") are scored in both modes, row by
// row of that table; an expression is never evaluated, so [[exit()]] scores
// as any other unparsable match.
func TestRaisingRepliesScore(t *testing.T) {
	t1, t3 := "T one", "T three"
	id1, id3 := "ID1", "ID3"
	dup, dupPrompt := multidocGold(t, Param{InfoKeys: "id title", DupInfos: [][]map[string]*string{{{"id": &id1, "title": &t1}, {"id": &id3, "title": &t3}}}})
	topic, _ := json.Marshal(Label{{Type: "#Topic#", Items: []KeySentence{{"Sentence A here.", 1, 3, true}}}})
	extract := &Gold{Scenario: OneDoc, Param: Param{Type: "<#Topic#>"}, Label: topic}
	multi := listGold(Param{Elements: []string{"alpha one.", "bravo two."}})
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	score := func(task, prompt, out string, g *Gold, strict bool) float64 {
		t.Helper()
		tk, _ := TaskByName(task)
		j, err := Score(tk, prompt, out, g, strict)
		if err != nil {
			t.Fatalf("%s %q (strict %v): %v", task, out, strict, err)
		}
		if j.Score < 0 || j.Score > 1 {
			t.Fatalf("%s %q (strict %v): score %v", task, out, strict, j.Score)
		}
		return j.Score
	}
	for _, strict := range []bool{false, true} {
		for _, out := range []string{`["alpha one.", "bravo two."]\`, `["alpha one.\x", "bravo two."]`, `["\u12"]`, `["\U00110000"]`, `["\N{NO SUCH NAME}"]`, deep} {
			score("multi_query_id", listPrompt(), out, multi, strict)
		}
		for _, out := range []string{`["Sentence \x A here."]`, deep} {
			score("extract", "Doc: Sentence A here.", out, extract, strict)
		}
		for _, out := range []string{`[["ID1", "T one\x"], ["ID3", "T three"]]`, `[["ID1"], ("ID2",)]`, `[["ID1", "T one"], None]`} {
			score("find_dup_text", dupPrompt, out, dup, strict)
		}
		for _, raises := range []string{`[[exit()]]`, `[[expression]]`} {
			if a, b := score("find_dup_text", dupPrompt, raises, dup, strict), score("find_dup_text", dupPrompt, `[[x y]]`, dup, strict); a != b {
				t.Errorf("strict %v: %s scores %v, an unparsable match %v", strict, raises, a, b)
			}
		}
	}
}
