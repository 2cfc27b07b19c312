package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func TestMetricTable(t *testing.T) {
	rows := []Row{
		{Bench: "lifbench", Model: "m", Metric: "ARS", Dims: map[string]string{"length": "4k", "task": "overall"}, Nums: map[string]float64{"length_tokens": 4096},
			Value: 0.5, Unit: "ratio", N: 3, NFailed: 1, CutCheck: "exact", Run: "r1", Version: "v", Created: "2026-11-24T10:00:00Z"},
		// a numeric dimension still given as a label, and a label that is not a number
		{Bench: "ifscale", Model: "m", Metric: "accuracy", Dims: map[string]string{"density": "10", "position": "10-20%"}, Nums: map[string]float64{"tilt": 0.5},
			Value: math.NaN(), N: 0, Run: "r1", Version: "v", Created: "2026-11-24T10:00:00Z"},
	}
	tab := MetricTable(rows)
	var cols []string
	for _, c := range tab.Columns {
		cols = append(cols, c.Name)
	}
	if got := strings.Join(cols, ","); got != "bench,model,metric,value,ci_low,ci_high,unit,n,n_failed,n_truncated,cut_check,n_reasoning_unfinished,run,ifkit_version,created,ci_level,ci_method,ci_unit,n_units,length_tokens,density,depth,position,seed,tilt,length,task" {
		t.Errorf("columns: %s", got)
	}
	var jl bytes.Buffer
	if err := WriteTypedJSONL(&jl, tab); err != nil {
		t.Fatal(err)
	}
	want := `{"bench":"lifbench","model":"m","metric":"ARS","value":0.5,"ci_low":null,"ci_high":null,"unit":"ratio","n":3,"n_failed":1,"n_truncated":0,"cut_check":"exact","n_reasoning_unfinished":0,"run":"r1","ifkit_version":"v","created":"2026-11-24T10:00:00Z","ci_level":null,"ci_method":null,"ci_unit":null,"n_units":null,"length_tokens":4096,"density":null,"depth":null,"position":null,"seed":null,"tilt":null,"length":"4k","task":"overall"}
{"bench":"ifscale","model":"m","metric":"accuracy","value":null,"ci_low":null,"ci_high":null,"unit":null,"n":0,"n_failed":0,"n_truncated":0,"cut_check":null,"n_reasoning_unfinished":0,"run":"r1","ifkit_version":"v","created":"2026-11-24T10:00:00Z","ci_level":null,"ci_method":null,"ci_unit":null,"n_units":null,"length_tokens":null,"density":10,"depth":null,"position":null,"seed":null,"tilt":0.5,"length":null,"task":null}
`
	if jl.String() != want {
		t.Errorf("JSONL:\n%s\nwant\n%s", jl.String(), want)
	}

	var pq bytes.Buffer
	if err := WriteParquet(&pq, tab); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(pq.Bytes()), int64(pq.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 2 {
		t.Errorf("%d rows", f.NumRows())
	}
	types := map[string]string{}
	for _, c := range f.Schema().Fields() {
		types[c.Name()] = c.Type().String()
		if c.Optional() == strings.Contains(",bench,model,metric,n,n_failed,n_truncated,n_reasoning_unfinished,run,ifkit_version,", ","+c.Name()+",") {
			t.Errorf("column %s: optional %v", c.Name(), c.Optional())
		}
	}
	for col, typ := range map[string]string{"value": "DOUBLE", "n": "INT(64,true)", "length_tokens": "INT(64,true)", "density": "DOUBLE", "bench": "STRING", "created": "TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)"} {
		if types[col] != typ {
			t.Errorf("column %s: %s, want %s", col, types[col], typ)
		}
	}
}

func TestWriteParquetRefusesMistypedValues(t *testing.T) {
	for _, tc := range []struct {
		col  Column
		v    any
		want string
	}{
		{Column{"n", BigInt, true}, nil, "required value is missing"},
		{Column{"n", BigInt, true}, 1.5, "float64 value 1.5"},
		{Column{"s", Text, false}, 3, "int value 3"},
		{Column{"t", Timestamp, false}, "yesterday", "string value"},
	} {
		err := WriteParquet(&bytes.Buffer{}, TypedTable{Columns: []Column{tc.col}, Rows: []map[string]any{{tc.col.Name: tc.v}}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %v: %v, want %q", tc.col.Name, tc.v, err, tc.want)
		}
	}
	var b bytes.Buffer
	if err := WriteParquet(&b, TypedTable{Columns: []Column{{"t", Timestamp, true}}, Rows: []map[string]any{{"t": time.Unix(1, 0)}}}); err != nil {
		t.Error(err)
	}
}
