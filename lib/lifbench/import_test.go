package lifbench

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/report"
)

// reference is ../shared/reference from the repository root.
func reference(t *testing.T, parts ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	p := filepath.Join(append([]string{root, "..", "shared", "reference"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("official reference files not found at %s (only the ifkit workspace has them): %v", p, err)
	}
	return p
}

func find(rows []report.Row, model, metric string, dims map[string]string) (float64, bool) {
next:
	for _, r := range rows {
		if r.Model != model || r.Metric != metric {
			continue
		}
		for k, v := range dims {
			if r.Dims[k] != v {
				continue next
			}
		}
		return r.Value, true
	}
	return 0, false
}

// TestReproducesOfficialNumbers checks every LIFBench number of
// ../shared/reference/README.md (paper Tables 3, 4 and 7) from the official
// score CSVs.
func TestReproducesOfficialNumbers(t *testing.T) {
	dir := reference(t, "lifbench", "scores")
	res, err := ImportScores([]string{dir}, aggregate.Options{Decimals: 3})
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{"OR", "OQ", "OE", "LSI", "LMI", "LOI", "LOE", "LBI", "LBE", "MB", "MF"}
	byCode := map[string]string{}
	for _, tk := range Tasks {
		byCode[tk.Code] = tk.Name
	}
	want := map[string]struct {
		tasks   []float64
		overall float64
		ifs     [3]float64
		lengths [6]float64
	}{
		"gpt-4o-2024-08-06": {
			[]float64{.797, .882, .834, .881, .836, .740, .823, .749, .825, .719, .588}, .758,
			[3]float64{.087, .063, .086}, [6]float64{.776, .807, .801, .779, .721, .666}},
		"Meta-Llama-3.1-8B-Instruct": {
			[]float64{.537, .681, .413, .705, .535, .397, .537, .668, .637, .522, .308}, .491,
			[3]float64{.154, .120, .199}, [6]float64{.580, .527, .548, .457, .446, .388}},
	}
	check := func(what string, got float64, ok bool, w float64) {
		t.Helper()
		if !ok {
			t.Errorf("%s: missing", what)
			return
		}
		if math.Abs(math.Round(got*1000)/1000-w) > 1e-9 {
			t.Errorf("%s = %.4f, want %.3f", what, got, w)
		}
	}
	for model, w := range want {
		for i, c := range codes {
			v, ok := find(res.Rows, model, "ARS", map[string]string{"task": byCode[c], "length": "all"})
			check(model+" ARS "+c, v, ok, w.tasks[i])
		}
		v, ok := find(res.Rows, model, "ARS", map[string]string{"task": "overall", "length": "all"})
		check(model+" ARS overall", v, ok, w.overall)
		for i, p := range []string{"expression", "variable", "length"} {
			v, ok := find(res.Rows, model, "IFS", map[string]string{"perspective": p, "length": "all"})
			check(model+" IFS "+p, v, ok, w.ifs[i])
		}
		for i, l := range []string{"4k", "8k", "16k", "32k", "64k", "128k"} {
			v, ok := find(res.Rows, model, "ARS", map[string]string{"task": "overall", "length": l})
			check(model+" ARS "+l, v, ok, w.lengths[i])
		}
	}
	// The gold pseudo-model scores 1 everywhere.
	v, ok := find(res.Rows, "standard", "ARS", map[string]string{"task": "overall", "length": "all"})
	check("standard ARS overall", v, ok, 1)
	// IFP (paper Table 8) for the five capabilities whose published values
	// the committed capability map reproduces.
	for c, w := range map[string]float64{"Format": .712, "Num": .842, "Ori": .836, "Recog": .756, "Spat": .806} {
		v, ok := find(res.Rows, "gpt-4o-2024-08-06", "IFP", map[string]string{"capability": c, "length": "all"})
		check("gpt-4o IFP "+c, v, ok, w)
	}
	// Per-length IFS (paper Table 10): gpt-4o Expression at 4k.
	v, ok = find(res.Rows, "gpt-4o-2024-08-06", "IFS", map[string]string{"perspective": "expression", "length": "4k"})
	if !ok || math.Abs(v-0.1016) > 5e-5 {
		t.Errorf("gpt-4o 4k Expression IFS = %.4f, want 0.1016", v)
	}
}
