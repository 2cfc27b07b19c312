package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// ColType is a Parquet column's logical type, as DuckDB reports it.
type ColType int

const (
	Text      ColType = iota // VARCHAR
	Double                   // DOUBLE
	BigInt                   // BIGINT
	Bool                     // BOOLEAN
	Timestamp                // TIMESTAMP WITH TIME ZONE (UTC, milliseconds)
)

// Column is one column of a table written as Parquet; every column but the
// required ones may hold nulls (a nil or missing value in the row's map).
type Column struct {
	Name     string
	Type     ColType
	Required bool
}

// TypedTable is a typed table: columns and one map of values per row. Values are
// string, float64 (NaN is null), int64, bool or time.Time, by column type.
type TypedTable struct {
	Columns []Column
	Rows    []map[string]any
}

// WriteParquet writes the table as one zstd-compressed Parquet file.
func WriteParquet(w io.Writer, t TypedTable) error {
	group := parquet.Group{}
	for _, c := range t.Columns {
		var n parquet.Node
		switch c.Type {
		case Text:
			n = parquet.String()
		case Double:
			n = parquet.Leaf(parquet.DoubleType)
		case BigInt:
			n = parquet.Int(64)
		case Bool:
			n = parquet.Leaf(parquet.BooleanType)
		case Timestamp:
			n = parquet.Timestamp(parquet.Millisecond)
		}
		if !c.Required {
			n = parquet.Optional(n)
		}
		group[c.Name] = parquet.Compressed(n, &zstd.Codec{})
	}
	schema := parquet.NewSchema("rows", group)
	pw := parquet.NewWriter(w, schema)
	for i, r := range t.Rows {
		row := make(map[string]any, len(t.Columns))
		for _, c := range t.Columns {
			v, err := parquetValue(c, r[c.Name])
			if err != nil {
				return fmt.Errorf("row %d: %w", i+1, err)
			}
			if v != nil {
				row[c.Name] = v
			}
		}
		if err := pw.Write(row); err != nil {
			return err
		}
	}
	return pw.Close()
}

// parquetValue checks a value against its column and converts it to what the
// writer takes; nil is null.
func parquetValue(c Column, v any) (any, error) {
	if f, ok := v.(float64); ok && math.IsNaN(f) {
		v = nil
	}
	if v == nil {
		if c.Required {
			return nil, fmt.Errorf("column %s: a required value is missing", c.Name)
		}
		return nil, nil
	}
	ok := false
	switch c.Type {
	case Text:
		_, ok = v.(string)
	case Double:
		_, ok = v.(float64)
	case BigInt:
		_, ok = v.(int64)
	case Bool:
		_, ok = v.(bool)
	case Timestamp:
		var t time.Time
		if t, ok = v.(time.Time); ok {
			return t.UnixMilli(), nil
		}
	}
	if !ok {
		return nil, fmt.Errorf("column %s: %T value %v", c.Name, v, v)
	}
	return v, nil
}

// IntegerDims are the numeric dimensions written as BIGINT; the others are
// DOUBLE.
var IntegerDims = []string{"length_tokens", "seed"}

// NumericDims are the numeric dimensions every metric table has a column
// for, so that tables of different benchmarks share one schema.
var NumericDims = []string{"length_tokens", "density", "depth", "position", "seed"}

// MetricTable types metric rows (docs/lake.md): the core columns, a column
// per numeric dimension (the usual five and any other a row has) and a
// VARCHAR column per string dimension.
func MetricTable(rows []Row) TypedTable {
	coreName := func(k string) bool { return slices.Contains(Core, k) }
	nums := slices.Clone(NumericDims)
	strs := []string{}
	for _, r := range rows {
		for k := range r.Nums {
			if !slices.Contains(nums, k) && !coreName(k) {
				nums = append(nums, k)
			}
		}
		for k := range r.Dims {
			if _, num := r.Nums[k]; !num && !slices.Contains(strs, k) && !slices.Contains(nums, k) && !coreName(k) {
				strs = append(strs, k)
			}
		}
	}
	sort.Strings(nums[len(NumericDims):])
	sort.Strings(strs)
	t := TypedTable{}
	for _, c := range coreColumns {
		t.Columns = append(t.Columns, c.Column)
	}
	for _, k := range nums {
		typ := Double
		if slices.Contains(IntegerDims, k) {
			typ = BigInt
		}
		t.Columns = append(t.Columns, Column{Name: k, Type: typ})
	}
	for _, k := range strs {
		t.Columns = append(t.Columns, Column{Name: k, Type: Text})
	}
	for _, r := range rows {
		m := map[string]any{}
		for _, c := range coreColumns {
			switch v := c.field(&r).(type) {
			case *float64:
				m[c.Name] = *v
			case *int:
				m[c.Name] = int64(*v)
			case **float64:
				if *v != nil {
					m[c.Name] = **v
				}
			case **int:
				if *v != nil {
					m[c.Name] = int64(**v)
				}
			case *string:
				// An optional text column is null when empty; a timestamp
				// is null when it does not parse.
				if c.Type == Timestamp {
					if t, err := time.Parse(time.RFC3339, *v); err == nil {
						m[c.Name] = t
					}
				} else if c.Required || *v != "" {
					m[c.Name] = *v
				}
			}
		}
		num := func(k string, v float64) {
			if slices.Contains(IntegerDims, k) {
				m[k] = int64(v)
			} else {
				m[k] = v
			}
		}
		for k, v := range r.Nums {
			if !coreName(k) {
				num(k, v)
			}
		}
		for k, v := range r.Dims {
			_, set := m[k]
			switch {
			case set || coreName(k):
			case slices.Contains(nums, k):
				// A numeric dimension still given as a label ("density": "10"):
				// its number, or null when it is not one.
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					num(k, f)
				}
			default:
				m[k] = v
			}
		}
		t.Rows = append(t.Rows, m)
	}
	return t
}

// WriteTypedJSONL writes the table as JSON Lines, the columns in order and
// every column on every line (null where a row has no value).
func WriteTypedJSONL(w io.Writer, t TypedTable) error {
	var b []byte
	for _, r := range t.Rows {
		b = append(b[:0], '{')
		for i, c := range t.Columns {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, record.Quote(c.Name)...)
			b = append(b, ':')
			switch v := r[c.Name].(type) {
			case string:
				b = append(b, record.Quote(v)...)
			case float64:
				b = appendFloat(b, v)
			case int64:
				b = strconv.AppendInt(b, v, 10)
			case bool:
				b = strconv.AppendBool(b, v)
			case time.Time:
				b = append(b, record.Quote(v.UTC().Format(time.RFC3339))...)
			default:
				b = append(b, "null"...)
			}
		}
		b = append(b, '}', '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
