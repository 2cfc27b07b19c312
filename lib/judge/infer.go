package judge

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/infer"
	"github.com/ifkit/ifkit/lib/record"
)

// InferProcessor sends judge calls through lib/infer: the same client,
// endpoints, retries, concurrency, ordering and --resume as infer-batch.
// A call that finally fails gives the record an "error" (stage judge), which
// aggregate-ifs counts; a verdict the cache gave says so (judgement.judge.cached).
func InferProcessor(opt infer.Options) Processor {
	return func(r *app.Run, prepare func(*record.Record) ([]byte, error), apply func(*record.Record, string, record.JudgeCall) error) error {
		return infer.Process(r, opt, prepare, func(rec *record.Record, res *infer.Result) error {
			usage := res.Response.Usage
			return apply(rec, res.Response.Text, record.JudgeCall{Model: res.Model, Reasoning: res.Response.Reasoning, Attempts: res.Response.Attempts, Endpoint: res.Response.Endpoint, Usage: &usage, FromCache: res.Response.FromCache})
		})
	}
}
