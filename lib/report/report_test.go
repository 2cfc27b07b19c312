package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestRowJSON(t *testing.T) {
	for _, tc := range []struct {
		row  Row
		want string
	}{
		{Row{Bench: "lifbench", Model: "m", Metric: "ARS", Dims: map[string]string{"task": "overall", "length": "all"}, Value: 0.758, N: 2802},
			`{"bench":"lifbench","model":"m","metric":"ARS","length":"all","task":"overall","value":0.758,"n":2802}`},
		{Row{Bench: "ifscale", Model: `a"b`, Metric: "om_ratio", Value: math.NaN(), N: 0},
			`{"bench":"ifscale","model":"a\"b","metric":"om_ratio","value":null,"n":0}`},
		{Row{Bench: "b", Model: "m", Metric: "x", Value: math.Inf(1), N: 1}, `{"bench":"b","model":"m","metric":"x","value":null,"n":1}`},
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
