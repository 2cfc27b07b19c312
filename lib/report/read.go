package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// ParseRow reads one tidy row as WriteJSONL writes it: the fixed fields by
// name, every other string field as a dimension, every other number as a
// numeric dimension (length_tokens, density, depth, position, seed:
// docs/records.md, "Dimensions"); "value": null is NaN.
func ParseRow(line []byte) (Row, error) {
	var m map[string]json.RawMessage
	if err := record.Unmarshal(line, &m); err != nil {
		return Row{}, err
	}
	var r Row
	core := map[string]any{}
	for _, c := range coreColumns {
		core[c.Name] = c.field(&r)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // errors name the same key whatever the map order
	for _, k := range keys {
		raw := m[k]
		switch f := core[k].(type) {
		case *float64:
			var v *float64
			if err := record.Unmarshal(raw, &v); err != nil {
				return Row{}, fmt.Errorf("%s: %v", k, err)
			}
			*f = math.NaN() // "value": null
			if v != nil {
				*f = *v
			}
		case *string, *int, **float64, **int:
			if err := record.Unmarshal(raw, f); err != nil {
				return Row{}, fmt.Errorf("%s: %v", k, err)
			}
		default:
			var v any
			if err := record.Unmarshal(raw, &v); err != nil {
				return Row{}, fmt.Errorf("%s: %v", k, err)
			}
			switch v := v.(type) {
			case string:
				if r.Dims == nil {
					r.Dims = map[string]string{}
				}
				r.Dims[k] = v
			case float64:
				if r.Nums == nil {
					r.Nums = map[string]float64{}
				}
				r.Nums[k] = v
			case nil:
			default:
				return Row{}, fmt.Errorf("%s: want a string or a number", k)
			}
		}
	}
	if r.Bench == "" || r.Metric == "" {
		return Row{}, errors.New(`not a metric row: "bench" and "metric" are required`)
	}
	return r, nil
}

// ReadRows reads tidy rows until EOF; a bad line fails as file:line: reason.
func ReadRows(in *stream.Input) ([]Row, error) {
	var rows []Row
	for {
		line, n, err := in.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		r, err := ParseRow(line)
		if err != nil {
			return nil, &stream.LineError{File: in.Name, Line: n, Err: err}
		}
		rows = append(rows, r)
	}
}
