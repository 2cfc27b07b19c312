package ifscale

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

// TestReproduceOfficialAggregates checks that per_sample_subset.csv reduces
// to the official *_by_rules_subset.csv files bit for bit (NaN as an empty
// cell), as analysis.py computed them.
func TestReproduceOfficialAggregates(t *testing.T) {
	dir := testbin.Reference(t, "ifscale")
	res, err := ImportPerSample([]string{filepath.Join(dir, "per_sample_subset.csv")}, aggOpts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range res.Rows {
		got[r.Metric+"|"+r.Model+"|"+strconv.Itoa(int(r.Nums["density"]))] = r.Value
	}
	files := []struct{ file, metric string }{
		{"accuracy_by_rules_subset.csv", "accuracy"},
		{"accuracy_std_by_rules_subset.csv", "stdev"},
		{"omod_ratio_by_rules_subset.csv", "om_ratio"},
		{"recency_by_rules_subset.csv", "primacy_ratio"},
	}
	for _, f := range files {
		rows := readCSV(t, filepath.Join(dir, f.file))
		if len(rows) != 150 {
			t.Fatalf("%s: %d rows, want 150", f.file, len(rows))
		}
		for _, row := range rows {
			want := math.NaN()
			if row[2] != "" {
				want, _ = strconv.ParseFloat(row[2], 64)
			}
			v, ok := got[f.metric+"|"+row[0]+"|"+row[1]]
			if !ok {
				t.Errorf("%s: no %s for %s N=%s", f.file, f.metric, row[0], row[1])
				continue
			}
			if math.Float64bits(v) != math.Float64bits(want) && !(math.IsNaN(v) && math.IsNaN(want)) {
				t.Errorf("%s: %s N=%s: got %v, want %s", f.file, row[0], row[1], v, row[2])
			}
		}
	}
}
