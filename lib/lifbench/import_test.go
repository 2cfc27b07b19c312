package lifbench

import (
	"math"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/testbin"
)

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
	dir := testbin.Reference(t, "lifbench", "scores")
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
	for c, w := range map[string]float64{"Format": .465, "Num": .539, "Ori": .627, "Recog": .393, "Spat": .553} {
		v, ok := find(res.Rows, "Meta-Llama-3.1-8B-Instruct", "IFP", map[string]string{"capability": c, "length": "all"})
		check("Llama-3.1-8B IFP "+c, v, ok, w)
	}
	// Per-length IFS, Expression and Variable (paper Tables 10 and 11).
	perLength := map[string][2][6]float64{
		"gpt-4o-2024-08-06":          {{.102, .124, .100, .124, .140, .155}, {.093, .085, .101, .105, .117, .164}},
		"Meta-Llama-3.1-8B-Instruct": {{.221, .244, .203, .271, .228, .225}, {.149, .167, .183, .320, .212, .249}},
	}
	for model, w := range perLength {
		for pi, p := range []string{"expression", "variable"} {
			for li, l := range []string{"4k", "8k", "16k", "32k", "64k", "128k"} {
				v, ok := find(res.Rows, model, "IFS", map[string]string{"perspective": p, "length": l})
				check(model+" IFS "+p+" "+l, v, ok, w[pi][li])
			}
		}
	}
}

// TestReproducesTable7 compares every cell of the paper's Table 7 (ARS per
// task and length, and overall) for the two models, as printed.
func TestReproducesTable7(t *testing.T) {
	dir := testbin.Reference(t, "lifbench", "scores")
	res, err := ImportScores([]string{dir}, aggregate.Options{Decimals: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gpt-4o-2024-08-06 4k":            "0.770 0.831 0.781 0.942 0.938 0.835 0.874 0.755 0.866 0.735 0.627 0.776",
		"gpt-4o-2024-08-06 8k":            "0.859 0.863 0.893 0.942 0.946 0.707 0.856 0.754 0.830 0.782 0.637 0.807",
		"gpt-4o-2024-08-06 16k":           "0.830 0.863 0.812 0.925 0.885 0.778 0.849 0.794 0.856 0.749 0.710 0.801",
		"gpt-4o-2024-08-06 32k":           "0.799 0.901 0.831 0.863 0.871 0.745 0.808 0.767 0.871 0.778 0.617 0.779",
		"gpt-4o-2024-08-06 64k":           "0.758 0.935 0.829 0.829 0.755 0.773 0.826 0.728 0.753 0.746 0.468 0.721",
		"gpt-4o-2024-08-06 128k":          "0.766 0.895 0.857 0.783 0.619 0.601 0.726 0.699 0.775 0.526 0.468 0.666",
		"Meta-Llama-3.1-8B-Instruct 4k":   "0.713 0.609 0.532 0.721 0.680 0.437 0.607 0.739 0.540 0.569 0.436 0.580",
		"Meta-Llama-3.1-8B-Instruct 8k":   "0.547 0.734 0.353 0.754 0.668 0.392 0.545 0.639 0.599 0.630 0.372 0.527",
		"Meta-Llama-3.1-8B-Instruct 16k":  "0.624 0.679 0.517 0.783 0.536 0.467 0.613 0.731 0.731 0.638 0.292 0.548",
		"Meta-Llama-3.1-8B-Instruct 32k":  "0.426 0.648 0.167 0.642 0.530 0.399 0.557 0.646 0.655 0.623 0.340 0.457",
		"Meta-Llama-3.1-8B-Instruct 64k":  "0.464 0.543 0.552 0.725 0.428 0.403 0.530 0.703 0.688 0.356 0.219 0.446",
		"Meta-Llama-3.1-8B-Instruct 128k": "0.449 0.874 0.355 0.604 0.366 0.287 0.373 0.548 0.612 0.317 0.191 0.388",
	}
	got := map[string]string{}
	for _, tb := range aggregate.Lay(Tables, res, aggregate.TableOptions{Decimals: 3}) {
		if !strings.Contains(tb.Title, "Table 7") {
			continue
		}
		for _, r := range tb.Rows {
			got[r[0]+" "+r[1]] = strings.Join(r[2:14], " ")
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s:\n got  %s\n want %s", k, got[k], w)
		}
	}
}
