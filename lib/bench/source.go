package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
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
