package aggregate

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stream"
)

// stamp gives every row of a result its provenance (docs/records.md,
// "Metric rows"): the run its records came from, this ifkit's version and
// when the rows were made. Rows read from earlier runs (--import rows) keep
// their own.
func stamp(res *Result, run string, created time.Time) {
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Run == "" {
			r.Run = run
		}
		if r.Version == "" {
			r.Version = app.Version
		}
		if r.Created == "" {
			r.Created = created.Format(time.RFC3339)
		}
	}
}

// tableNames are the tables' file names (report.TableName), numbered when
// two titles give the same name.
func tableNames(tables []report.Table) []string {
	names := make([]string, len(tables))
	seen := map[string]int{}
	for i, t := range tables {
		n := report.TableName(t, i)
		if seen[n]++; seen[n] > 1 {
			n = fmt.Sprintf("%s-%d", n, seen[n])
		}
		names[i] = n
	}
	return names
}

// tableIndex is what _tables.json says of each CSV file of a folder: its
// title and notes (simulated replies, partial shards), which a plain CSV
// file cannot hold.
type tableIndex struct {
	Name  string   `json:"name"`
	File  string   `json:"file"`
	Title string   `json:"title"`
	Notes []string `json:"notes,omitempty"`
}

// writeCSVFolder writes -o DIR/: one plain CSV per table and _tables.json.
func writeCSVFolder(dir string, tables []report.Table) error {
	index := []tableIndex{}
	for i, name := range tableNames(tables) {
		file := name + ".csv"
		o, err := stream.Create(filepath.Join(dir, file), stream.None, nil)
		if err != nil {
			return err
		}
		if err := report.WriteCSVTable(o, tables[i]); err != nil {
			o.Discard()
			return err
		}
		if err := o.Close(); err != nil {
			return err
		}
		index = append(index, tableIndex{Name: name, File: file, Title: tables[i].Title, Notes: tables[i].Notes})
	}
	return parts.WriteJSON(filepath.Join(dir, "_tables.json"), index)
}

// writeOneTable writes --table NAME as a plain CSV; its notes go to stderr.
func writeOneTable(r *app.Run, w io.Writer, tables []report.Table, name string) error {
	names := tableNames(tables)
	i := slices.Index(names, name)
	if i < 0 {
		return app.Usagef("--table %q: want one of %s", name, strings.Join(names, ", "))
	}
	for _, n := range tables[i].Notes {
		fmt.Fprintf(r.Stderr(), "%s: note: %s\n", name, n)
	}
	return report.WriteCSVTable(w, tables[i])
}
