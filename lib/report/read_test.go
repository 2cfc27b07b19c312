package report

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseRow(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Row
		err  string
	}{
		{line: `{"bench":"lifbench","model":"m","metric":"ARS","length":"all","task":"overall","value":0.758,"n":2802}`,
			want: Row{Bench: "lifbench", Model: "m", Metric: "ARS", Dims: map[string]string{"length": "all", "task": "overall"}, Value: 0.758, N: 2802}},
		// the schema's fields, numeric dimensions as numbers
		{line: `{"bench":"ifscale","model":"m","metric":"accuracy","density":50,"seed":1,"value":90,"unit":"percent","n":5,"n_failed":1,"n_truncated":2,"n_reasoning_unfinished":0,"run":"r1","ifkit_version":"v1","created":"2026-01-01T00:00:00Z"}`,
			want: Row{Bench: "ifscale", Model: "m", Metric: "accuracy", Nums: map[string]float64{"density": 50, "seed": 1}, Value: 90, Unit: "percent", N: 5, NFailed: 1, NTruncated: 2, Run: "r1", Version: "v1", Created: "2026-01-01T00:00:00Z"}},
		{line: `{"bench":"b","metric":"x","value":null,"n":0}`, want: Row{Bench: "b", Metric: "x", Value: math.NaN()}},
		{line: `{"bench":"b","metric":"x","value":1,"ci_low":0.5,"ci_high":null,"ci_level":0.95,"ci_method":"bootstrap","ci_unit":"exam","n_units":7}`,
			want: Row{Bench: "b", Metric: "x", Value: 1, CILow: new(0.5), CILevel: new(0.95), CIMethod: "bootstrap", CIUnit: "exam", NUnits: new(7)}},
		{line: `{"bench":"b","metric":"x","n_units":1.5}`, err: "n_units:"},
		{line: `{"model":"m","value":1}`, err: "not a metric row"},
		{line: `{"bench":"b","metric":"x","value":"high"}`, err: "value:"},
		{line: `{"bench":"b","metric":"x","task":["a"]}`, err: "task: want a string or a number"},
		{line: `{"bench":"b","metric":"x","n":1.5}`, err: "n:"},
		{line: `[1]`, err: "cannot unmarshal"},
	} {
		got, err := ParseRow([]byte(tc.line))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRow(%s) error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRow(%s): %v", tc.line, err)
			continue
		}
		if math.IsNaN(tc.want.Value) && math.IsNaN(got.Value) {
			got.Value, tc.want.Value = 0, 0
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseRow(%s)\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
}

// Whatever the line, ParseRow returns a row or an error, and a row it reads
// is written back (WriteJSONL) to a line it reads the same.
func FuzzParseRow(f *testing.F) {
	f.Add([]byte(`{"bench":"lifbench","model":"m","metric":"ARS","length":"all","task":"overall","value":0.758,"n":2802}`))
	f.Add([]byte(`{"bench":"b","metric":"x","value":null,"n":0,"depth":3}`))
	f.Add([]byte(`{"bench":"b","metric":"x","value":1e400}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseRow(line)
		if err != nil {
			return
		}
		r.Nums = nil // not written by MarshalJSON yet
		var b bytes.Buffer
		if err := WriteJSONL(&b, []Row{r}); err != nil {
			t.Fatal(err)
		}
		back, err := ParseRow(bytes.TrimSpace(b.Bytes()))
		if err != nil {
			t.Fatalf("written row %s does not read back: %v", b.Bytes(), err)
		}
		a, _ := r.MarshalJSON()
		c, _ := back.MarshalJSON()
		if !bytes.Equal(a, c) {
			t.Errorf("round trip changed the row:\n%s\n%s", a, c)
		}
	})
}
