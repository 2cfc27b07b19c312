package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/official"
	"github.com/ifkit/ifkit/lib/record"
)

// Every item says where it came from in the "source" field, which
// aggregate-ifs notes under every table and as a row dimension, so a report
// made from the project's own samples never passes for the official data.
// A generator emits through EmitFrom with one of the sources below.

// EmitFrom is r.Emit for items from source.
func EmitFrom(r *app.Run, source string) func(*record.Record) error {
	return func(rec *record.Record) error {
		if err := rec.Set(record.SourceField, source); err != nil {
			return err
		}
		return r.Emit(rec)
	}
}

// FileSource names files as reports show them: base name and size. A file
// that cannot be read is named without a size; its reader reports why.
func FileSource(kind string, paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
		if st, err := os.Stat(p); err == nil {
			names[i] += fmt.Sprintf(", %d bytes", st.Size())
		}
	}
	return kind + " " + strings.Join(names, "; ")
}

// OfficialSource is the source of items imported from official files.
func OfficialSource(paths ...string) string { return FileSource("official file", paths) }

// OfficialDir is the folder of official files that --official names (laid
// out by gen-context fetch-official: docs/official.md), or "" when it names
// files. A folder given beside other values is a usage error.
func OfficialDir(r *app.Run) (string, error) {
	vals := r.StringSlice("official")
	for _, v := range vals {
		if st, err := os.Stat(v); err == nil && st.IsDir() {
			if len(vals) > 1 {
				return "", app.Usagef("--official %s is a folder of official files: give it alone, or name the files", v)
			}
			return v, nil
		}
	}
	return "", nil
}

// OfficialData is the source of items made from official files found in
// the folder of official files.
func OfficialData(files ...official.Local) string { return "official data: " + OfficialNames(files...) }

// OfficialNames names official files as reports show them: each by its path
// in the authors' repository, with its size and whether it was verified
// against its pin.
func OfficialNames(files ...official.Local) string {
	names := make([]string, len(files))
	for i, f := range files {
		check := "verified"
		if !f.Verified {
			check = "unverified (no pin covers it)"
		}
		names[i] = fmt.Sprintf("%s, %d bytes, %s", f.Path, f.Size, check)
	}
	return strings.Join(names, "; ")
}

// AddToSource appends note to the record's source: what a later choice
// (--limit, the official templates) made of the items.
func AddToSource(rec *record.Record, note string) error {
	src := rec.String(record.SourceField)
	if src != "" {
		src += "; "
	}
	return rec.Set(record.SourceField, src+note)
}
