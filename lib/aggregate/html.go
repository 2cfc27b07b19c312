package aggregate

import (
	"errors"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stream"
)

// readReference reads the --reference rows (none without the flag).
func readReference(path string) ([]report.Row, error) {
	if path == "" {
		return nil, nil
	}
	return readRowsFile(path)
}

// readRowsFile reads one file of metric rows; a missing one is bad input,
// exit 3 (docs/cli.md).
func readRowsFile(path string) ([]report.Row, error) {
	in, err := stream.Open(path, nil)
	if err != nil {
		return nil, &stream.LineError{File: path, Err: err}
	}
	defer in.Close()
	return report.ReadRows(in)
}

// writePage writes the --html report: the run's rows and, with
// --reference, the published models' rows drawn beside them.
func writePage(page Page, path string, rows, ref []report.Row, prov *Provenance) error {
	if page == nil {
		return errors.New("--html: this build has no report page")
	}
	o, err := stream.Create(path, stream.None, nil)
	if err != nil {
		return err
	}
	if err := page.Write(o, rows, ref, prov); err != nil {
		o.Discard() // a page cannot be resumed: leave no FILE.partial
		return err
	}
	return o.Close()
}

// ImportRows reads tidy rows written by earlier runs (--rows, --format
// jsonl), so one page can draw several runs side by side:
// aggregate-ifs --import rows --html report.html a/report.jsonl b/report.jsonl.
func ImportRows(files []string, _ Options) (*Result, error) {
	if len(files) == 0 {
		return nil, app.Usagef("--import rows: name the row files (report.jsonl)")
	}
	res := &Result{}
	for _, f := range files {
		rows, err := readRowsFile(f)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rows...)
	}
	return res, nil
}
