package report

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRowJSON(t *testing.T) {
	for _, tc := range []struct {
		row  Row
		want string
	}{
		{Row{Bench: "lifbench", Model: "m", Metric: "ARS", Dims: map[string]string{"task": "overall", "length": "all"}, Value: 0.758, Unit: "ratio", N: 2802, NFailed: 3, NTruncated: 1, CutCheck: "cuts under 4 % not detectable"},
			`{"bench":"lifbench","model":"m","metric":"ARS","value":0.758,"ci_low":null,"ci_high":null,"unit":"ratio","n":2802,"n_failed":3,"n_truncated":1,"cut_check":"cuts under 4 % not detectable","n_reasoning_unfinished":0,"run":"","ifkit_version":"","created":"","ci_level":null,"ci_method":"","ci_unit":"","n_units":null,"length":"all","task":"overall"}`},
		{Row{Bench: "ifscale", Model: `a"b`, Metric: "om_ratio", Value: math.NaN(), N: 0},
			`{"bench":"ifscale","model":"a\"b","metric":"om_ratio","value":null,"ci_low":null,"ci_high":null,"unit":"","n":0,"n_failed":0,"n_truncated":0,"cut_check":"","n_reasoning_unfinished":0,"run":"","ifkit_version":"","created":"","ci_level":null,"ci_method":"","ci_unit":"","n_units":null}`},
		{Row{Bench: "b", Model: "m", Metric: "x", Value: math.Inf(1), N: 1, Run: "r1", Version: "v0.1", Created: "2026-01-02T03:04:05Z"},
			`{"bench":"b","model":"m","metric":"x","value":null,"ci_low":null,"ci_high":null,"unit":"","n":1,"n_failed":0,"n_truncated":0,"cut_check":"","n_reasoning_unfinished":0,"run":"r1","ifkit_version":"v0.1","created":"2026-01-02T03:04:05Z","ci_level":null,"ci_method":"","ci_unit":"","n_units":null}`},
		// Numbers sort among the labels; a label may not shadow a number or a core column.
		{Row{Bench: "longins", Model: "m", Metric: "F1", Unit: "percent", Value: 52.5, N: 4,
			Dims: map[string]string{"length": "4k", "depth": "shadowed", "n": "shadowed", "mode": "gist"},
			Nums: map[string]float64{"length_tokens": 4096, "depth": 3, "density": 0.25}},
			`{"bench":"longins","model":"m","metric":"F1","value":52.5,"ci_low":null,"ci_high":null,"unit":"percent","n":4,"n_failed":0,"n_truncated":0,"cut_check":"","n_reasoning_unfinished":0,"run":"","ifkit_version":"","created":"","ci_level":null,"ci_method":"","ci_unit":"","n_units":null,"density":0.25,"depth":3,"length":"4k","length_tokens":4096,"mode":"gist"}`},
		// An interval, its level, method and units.
		{Row{Bench: "b", Model: "m", Metric: "x", Value: 0.5, CILow: new(0.25), CIHigh: new(0.75), CILevel: new(0.95), CIMethod: "bootstrap", CIUnit: "context", NUnits: new(18), N: 9, NReasoningUnfinished: 2},
			`{"bench":"b","model":"m","metric":"x","value":0.5,"ci_low":0.25,"ci_high":0.75,"unit":"","n":9,"n_failed":0,"n_truncated":0,"cut_check":"","n_reasoning_unfinished":2,"run":"","ifkit_version":"","created":"","ci_level":0.95,"ci_method":"bootstrap","ci_unit":"context","n_units":18}`},
	} {
		got, err := tc.row.MarshalJSON()
		if err != nil || string(got) != tc.want {
			t.Errorf("MarshalJSON = %s, %v\nwant %s", got, err, tc.want)
		}
	}
}

func TestTables(t *testing.T) {
	tables := []Table{{Title: "T", Columns: []string{"a", "b|c"}, Rows: [][]string{{"1", "x|y"}}, Notes: []string{"note"}}}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, tables); err != nil {
		t.Fatal(err)
	}
	want := "### T\n\n| a | b\\|c |\n|---|---|\n| 1 | x\\|y |\n\nnote\n"
	if md.String() != want {
		t.Errorf("markdown:\n%q\nwant\n%q", md.String(), want)
	}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, tables); err != nil {
		t.Fatal(err)
	}
	if want := "# T\na,b|c\n1,x|y\n# note\n"; csv.String() != want {
		t.Errorf("csv:\n%q\nwant %q", csv.String(), want)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, nil, tables); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(js.String(), `{"rows":[],"tables":[{"title":"T"`) {
		t.Errorf("json: %s", js.String())
	}
	if Fmt(math.NaN(), 3) != "nan" || Fmt(1.5, 2) != "1.50" {
		t.Errorf("Fmt: %q %q", Fmt(math.NaN(), 3), Fmt(1.5, 2))
	}
}

// The core columns come from one list: a row written as JSON reads back the
// same, its keys are the list's in order, and the typed table's first
// columns are the list's.
func TestCoreColumnsOneList(t *testing.T) {
	r := Row{Bench: "b", Model: "m", Metric: "x", Value: 0.5, Unit: "ratio", N: 3, NFailed: 1, NTruncated: 2, Run: "r", Version: "v", Created: "2026-01-02T03:04:05Z",
		CILow: new(0.25), CIHigh: new(0.75), CILevel: new(0.95), CIMethod: "bootstrap", CIUnit: "context", NUnits: new(18),
		Dims: map[string]string{"task": "t"}, Nums: map[string]float64{"density": 10}}
	b, _ := r.MarshalJSON()
	back, err := ParseRow(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", back, r)
	}
	var order []string
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		order = append(order, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if !slices.Equal(order[:len(Core)], Core) {
		t.Errorf("keys %v, want the core columns %v first", order, Core)
	}
	tt := MetricTable([]Row{r})
	for i, name := range Core {
		if tt.Columns[i].Name != name {
			t.Errorf("typed column %d is %s, want %s", i, tt.Columns[i].Name, name)
		}
	}
	if got := tt.Rows[0]["n_failed"]; got != int64(1) {
		t.Errorf("typed n_failed %v (%T)", got, got)
	}
	if lo, units := tt.Rows[0]["ci_low"], tt.Rows[0]["n_units"]; lo != 0.25 || units != int64(18) {
		t.Errorf("typed ci_low %v (%T), n_units %v (%T)", lo, lo, units, units)
	}
}

// cellsOf splits a Markdown table line into its cells as GFM does: a "|"
// ends a cell unless a backslash escapes it (a backslash escapes any
// punctuation, itself included).
func cellsOf(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return cells[1:] // not the text before the first "|"
}

// Strings from records (a model name, a source) cannot break a Markdown
// table, nor become HTML or a link when the report is rendered.
func TestMarkdownEscapesRecordStrings(t *testing.T) {
	hostile := []string{
		"a|b", "a\\|b", "two\nlines", "cr\r\nlf", `<script>alert(1)</script>`, `</svg><img src=x onerror=alert(1)>`,
		`"><img onerror=alert(1)>`, "[click](javascript:alert(1))", "![x](javascript:alert(1))", "[ref][x]", "`code` *bold* &amp;",
	}
	tables := []Table{{Title: "T " + hostile[4], Columns: []string{"model", "score"}, Notes: []string{"Items: " + hostile[5]}}}
	for _, h := range hostile {
		tables[0].Rows = append(tables[0].Rows, []string{h, "0.5"})
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, tables); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, bad := range []string{"<script", "<img", "</svg", "\r"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown holds %q:\n%s", bad, out)
		}
	}
	if regexp.MustCompile(`[^\\]\]\(javascript:|[^\\]\]\[x`).MatchString(out) {
		t.Errorf("markdown holds a link:\n%s", out)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 1+len(hostile) {
		t.Fatalf("%d table lines, want %d (a name broke a row):\n%s", len(rows), 1+len(hostile), out)
	}
	for i, l := range rows[1:] {
		cells := cellsOf(l)
		if len(cells) != 2 || cells[1] != "0.5" {
			t.Errorf("row of %q: cells %q, want the name and 0.5", hostile[i], cells)
		}
	}
	// An interval reads as written: a lone bracket links nothing.
	md.Reset()
	if err := WriteMarkdown(&md, []Table{{Columns: []string{"model", "ARS"}, Rows: [][]string{{"m", "0.758 [0.731, 0.785]"}, {"n", "0.5 [too few]"}}}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| m | 0.758 [0.731, 0.785] |", "| n | 0.5 [too few] |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
