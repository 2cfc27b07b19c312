package infer

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

// Batch is infer-batch: each record's "request" is sent and the record gets
// "model" and "response" (or "error"). Records that already carry "error"
// (an earlier stage failed) pass through untouched.
func Batch(r *app.Run) error {
	opt, err := OptionsFromFlags(r, "")
	if err != nil {
		return err
	}
	if len(opt.BaseURLs) == 0 && opt.Batch.NeedsEndpoint() && !opt.DryRun {
		return app.Usagef("no endpoint: give --base-url or set OPENAI_BASE_URL")
	}
	return Process(r, opt, batchRequest, batchApply)
}

// Paid says whether a record of infer-batch's output holds a model's
// answer (app.Tool.Paid): a failure, or a request line of --batch-export,
// cost nothing.
func Paid(rec *record.Record) bool { return rec.Has("response") }

func batchRequest(rec *record.Record) ([]byte, error) {
	if rec.Errored() {
		return nil, nil
	}
	raw := rec.Raw("request")
	if !rec.Has("request") {
		return nil, app.Invalidf(`no "request" field (expand-templates makes it)`)
	}
	if raw[0] != '{' {
		return nil, app.Invalidf(`"request" is not a JSON object`)
	}
	return raw, nil
}

func batchApply(rec *record.Record, res *Result) error {
	if err := rec.Set("model", res.Model); err != nil {
		return err
	}
	return rec.Set("response", res.Response)
}
