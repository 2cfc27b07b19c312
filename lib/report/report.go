package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
)

// Row is one metric value with its dimensions: bench, model, metric, value
// and n always; task, length, density, ... as needed.
//
// The one metric-row schema (docs/records.md, "Metric rows"): Dims hold string dimensions and
// human labels ("length": "4k"), Nums the numeric dimensions written as JSON
// numbers (length_tokens, density, depth, position, seed); Unit says what
// Value is in (ratio|percent|count|tokens|words: the papers' own units);
// NFailed and NTruncated count the records behind the row that failed or
// were cut by the server, NReasoningUnfinished those of NFailed whose reply
// ended inside its reasoning trace; Run, Version and Created are the
// provenance that aggregate-ifs stamps on every row. CILow and CIHigh are the
// value's confidence interval at CILevel, found by CIMethod resampling NUnits
// units of what CIUnit names (docs/metrics.md); nil where none was computed.
type Row struct {
	Bench      string
	Model      string
	Metric     string
	Dims       map[string]string
	Nums       map[string]float64
	Value      float64 // NaN is written as null
	CILow      *float64
	CIHigh     *float64
	Unit       string
	N          int
	NFailed    int
	NTruncated int
	// CutCheck says how well the records behind the row were checked for
	// cuts, so that an n_truncated of 0 is never read as a count nobody
	// could make: "exact", "cuts under N % not detectable", "cuts not
	// checked", or "" (no reply checked: official scores imported).
	CutCheck string
	// NReasoningUnfinished is set by aggregate-ifs for every benchmark
	// (lib/aggregate, thinking.go), not by the benchmarks.
	NReasoningUnfinished int
	Run                  string
	Version              string
	Created              string
	CILevel              *float64
	CIMethod             string
	CIUnit               string
	NUnits               *int
}

// The values of CIMethod besides a bootstrap's (lib/aggregate writes them).
const (
	// TooFewUnits: the value stands on too few units for an interval to
	// mean anything, and has none.
	TooFewUnits = "too few units"
)

// column is one of the columns every metric row has: its name and Parquet
// type, and the Row field that holds it (a *string, *int or *float64).
// coreColumns is the one list of them, in the order written (docs/records.md,
// "Core columns"): JSON Lines, Parquet and the row reader all follow it.
type column struct {
	Column
	field func(*Row) any // a *string, *int, *float64, **float64 or **int (nil: null)
}

var coreColumns = []column{
	{Column{"bench", Text, true}, func(r *Row) any { return &r.Bench }},
	{Column{"model", Text, true}, func(r *Row) any { return &r.Model }},
	{Column{"metric", Text, true}, func(r *Row) any { return &r.Metric }},
	{Column{"value", Double, false}, func(r *Row) any { return &r.Value }},
	{Column{"ci_low", Double, false}, func(r *Row) any { return &r.CILow }},
	{Column{"ci_high", Double, false}, func(r *Row) any { return &r.CIHigh }},
	{Column{"unit", Text, false}, func(r *Row) any { return &r.Unit }},
	{Column{"n", BigInt, true}, func(r *Row) any { return &r.N }},
	{Column{"n_failed", BigInt, true}, func(r *Row) any { return &r.NFailed }},
	{Column{"n_truncated", BigInt, true}, func(r *Row) any { return &r.NTruncated }},
	{Column{"cut_check", Text, false}, func(r *Row) any { return &r.CutCheck }},
	{Column{"n_reasoning_unfinished", BigInt, true}, func(r *Row) any { return &r.NReasoningUnfinished }},
	{Column{"run", Text, true}, func(r *Row) any { return &r.Run }},
	{Column{"ifkit_version", Text, true}, func(r *Row) any { return &r.Version }},
	{Column{"created", Timestamp, false}, func(r *Row) any { return &r.Created }},
	{Column{"ci_level", Double, false}, func(r *Row) any { return &r.CILevel }},
	{Column{"ci_method", Text, false}, func(r *Row) any { return &r.CIMethod }},
	{Column{"ci_unit", Text, false}, func(r *Row) any { return &r.CIUnit }},
	{Column{"n_units", BigInt, false}, func(r *Row) any { return &r.NUnits }},
}

// Core lists the names of the columns every metric row has, in the order
// written: the same columns whether or not anything failed.
var Core = func() []string {
	names := make([]string, len(coreColumns))
	for i, c := range coreColumns {
		names[i] = c.Name
	}
	return names
}()

// MarshalJSON writes the core columns, then the dimensions (Dims as strings,
// Nums as numbers) in key order. A dimension named like a core column, or a
// string dimension with the name of a numeric one, is left out: a row must
// not hold one key twice.
func (r Row) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, c := range coreColumns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, record.Quote(c.Name)...), ':')
		switch v := c.field(&r).(type) {
		case *string:
			b = append(b, record.Quote(*v)...)
		case *int:
			b = strconv.AppendInt(b, int64(*v), 10)
		case *float64:
			b = appendFloat(b, *v)
		case **float64:
			if *v == nil {
				b = append(b, "null"...)
			} else {
				b = appendFloat(b, **v)
			}
		case **int:
			if *v == nil {
				b = append(b, "null"...)
			} else {
				b = strconv.AppendInt(b, int64(**v), 10)
			}
		}
	}
	keys := make([]string, 0, len(r.Dims)+len(r.Nums))
	for k := range r.Dims {
		if _, num := r.Nums[k]; !num && !slices.Contains(Core, k) {
			keys = append(keys, k)
		}
	}
	for k := range r.Nums {
		if !slices.Contains(Core, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b = append(b, ',')
		b = append(b, record.Quote(k)...)
		b = append(b, ':')
		if v, num := r.Nums[k]; num {
			b = appendFloat(b, v)
		} else {
			b = append(b, record.Quote(r.Dims[k])...)
		}
	}
	return append(b, '}'), nil
}

func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// Table is a titled grid of already formatted cells.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
	Notes   []string // printed under the table
	// Scope narrows the records a table is made from, for the notes that
	// count them (lib/aggregate): "model" the model that answered, any other
	// key a value of the records' group ("mode": "gist"). Empty: all of the
	// benchmark's records.
	Scope map[string]string
}

// CutPhrase says how many prompts the server cut (n) as far as the check
// can tell (a CutCheck label): the number when every record was checked
// exactly, else also how far it can be trusted, never "0 cut" where a cut
// could not have been seen. The figures' captions and the provenance table
// say it alike.
func CutPhrase(n int, check string) string {
	switch {
	case check == "" || check == "exact":
		return fmt.Sprintf("%d cut by the server", n)
	case n > 0:
		return fmt.Sprintf("%d cut by the server (%s)", n, check)
	}
	return check
}

// Fmt formats a metric value with the given decimals; NaN prints as "nan",
// as the official pandas outputs do.
func Fmt(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "nan"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// WriteMarkdown prints tables as GitHub-flavoured Markdown.
func WriteMarkdown(w io.Writer, tables []Table) error {
	var sb strings.Builder
	for i, t := range tables {
		if i > 0 {
			sb.WriteString("\n")
		}
		if t.Title != "" {
			fmt.Fprintf(&sb, "### %s\n\n", markdownText(t.Title))
		}
		sb.WriteString("| " + strings.Join(escapeCells(t.Columns), " | ") + " |\n")
		sb.WriteString("|" + strings.Repeat("---|", len(t.Columns)) + "\n")
		for _, r := range t.Rows {
			sb.WriteString("| " + strings.Join(escapeCells(r), " | ") + " |\n")
		}
		for _, n := range t.Notes {
			sb.WriteString("\n" + markdownText(n) + "\n")
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func escapeCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = markdownText(c)
	}
	return out
}

// markdownEscapes make a string from a record (a model name, a source, a
// task) plain text in GitHub-flavoured Markdown: "|" would end a table cell
// and a line break the row; "<" opens raw HTML (a <script>, an <img
// onerror>), "](" and "][" make a link or an image (javascript:), "`" and
// "*" code and emphasis; "&" would start an entity. A lone "[" or "]" is
// left alone, so intervals ("[0.73, 0.79]", "[too few]") read as written:
// a link needs one of those pairs, and a reference definition a line of
// its own, which a line break escaped as <br> never starts. "_" is left
// alone too: GFM does not emphasise inside words, and task names
// (single_query_id) stay readable in a terminal.
var markdownEscapes = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "](", `\](`, "][", `\][`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
)

func markdownText(s string) string { return markdownEscapes.Replace(s) }

// WriteCSV prints each table as a CSV block with a "# title" line before it
// and its notes (simulated replies, partial shards, …) as "# " lines after
// it: a CSV must not lose what the Markdown says about the numbers.
func WriteCSV(w io.Writer, tables []Table) error {
	cw := csv.NewWriter(w)
	for i, t := range tables {
		if i > 0 {
			cw.Write(nil)
		}
		if t.Title != "" {
			cw.Write([]string{"# " + t.Title})
		}
		cw.Write(t.Columns)
		cw.WriteAll(t.Rows)
		for _, n := range t.Notes {
			cw.Write([]string{"# " + n})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL prints one row per line.
func WriteJSONL(w io.Writer, rows []Row) error {
	for _, r := range rows {
		b, _ := r.MarshalJSON()
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON prints {"rows": [...], "tables": [...]} as one document.
func WriteJSON(w io.Writer, rows []Row, tables []Table) error {
	type jt struct {
		Title   string            `json:"title"`
		Columns []string          `json:"columns"`
		Rows    [][]string        `json:"rows"`
		Notes   []string          `json:"notes,omitempty"`
		Scope   map[string]string `json:"-"`
	}
	doc := struct {
		Rows   []Row `json:"rows"`
		Tables []jt  `json:"tables"`
	}{Rows: rows}
	if doc.Rows == nil {
		doc.Rows = []Row{}
	}
	for _, t := range tables {
		doc.Tables = append(doc.Tables, jt(t))
	}
	b, err := record.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteCSVTable writes one table as a plain CSV file: the header and the
// rows, nothing else, so DuckDB and spreadsheets load it as it is.
func WriteCSVTable(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Columns)
	cw.WriteAll(t.Rows)
	cw.Flush()
	return cw.Error()
}

// TableName is a table's file-safe name: its title in lower case, runs of
// other characters as one "-" ("LIFBench ARS by length" is
// "lifbench-ars-by-length"); "table-N" for an untitled one.
func TableName(t Table, i int) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(t.Title) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return fmt.Sprintf("table-%d", i+1)
	}
	return b.String()
}
