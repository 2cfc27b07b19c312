// Command addfield is a test-only filter for bench/passthrough: it adds
// "x":1 to every record through lib/app (read, sniff, parse, Set, write), so the
// benchmark measures the shared I/O path that every ifkit stage runs on.
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

func main() {
	app.Main(app.Tool{
		Name:      "addfield",
		Usage:     "add \"x\":1 to every record (benchmark helper)",
		ArgsUsage: "[FILE...]",
		Description: `Example:
  addfield in.jsonl.zst | head -1`,
		Action: func(r *app.Run) error {
			return r.Map(func(rec *record.Record) error { return rec.Set("x", 1) })
		},
	})
}
