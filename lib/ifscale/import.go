package ifscale

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/stream"
)

// perSampleColumns is the header of the official per_sample.csv.
var perSampleColumns = []string{"model", "num_rules", "seed", "accuracy", "omission_pct", "modification_pct", "recency_ratio", "latency"}

// ReadPerSample reads the official per_sample.csv (analysis.py's output):
// every row is an accepted sample; empty cells are NaN.
func ReadPerSample(r io.Reader) ([]Sample, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range perSampleColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("the header lacks column %q (want %v)", c, perSampleColumns)
		}
	}
	var out []Sample
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		num := func(name string) (float64, error) {
			s := row[col[name]]
			if s == "" {
				return math.NaN(), nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0, fmt.Errorf("line %d: %s %q is not a number", line, name, s)
			}
			return v, nil
		}
		s := Sample{Model: row[col["model"]], Seed: row[col["seed"]]}
		if s.N, err = strconv.Atoi(row[col["num_rules"]]); err != nil {
			return nil, fmt.Errorf("line %d: num_rules %q is not an integer", line, row[col["num_rules"]])
		}
		for _, f := range []struct {
			name string
			dst  *float64
		}{{"accuracy", &s.Accuracy}, {"omission_pct", &s.OmissionPct}, {"modification_pct", &s.ModPct}, {"recency_ratio", &s.RecencyRatio}, {"latency", &s.Latency}} {
			if *f.dst, err = num(f.name); err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
}

// ImportPerSample is `aggregate-ifs --import ifscale-per-sample FILE...`.
func ImportPerSample(files []string, opt aggregate.Options) (*aggregate.Result, error) {
	if len(files) == 0 {
		return nil, errors.New("--import ifscale-per-sample: name the per_sample.csv file(s)")
	}
	var all []Sample
	for _, f := range files {
		fh, err := stream.OpenText(f)
		if err != nil {
			return nil, err
		}
		s, err := ReadPerSample(fh)
		fh.Close()
		if err != nil {
			return nil, app.Invalid(fmt.Errorf("%s: %w", f, err))
		}
		all = append(all, s...)
	}
	return Result(Reduce(all, nil)), nil
}
