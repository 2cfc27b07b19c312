package judge

import (
	"fmt"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/infer"
	"github.com/ifkit/ifkit/lib/oai"
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

// modelName is the judge model's name as the calls send it, for the records
// to name (Options.JudgeModel): --judge-model, else the one model the first
// endpoint that answers lists, as lib/infer finds it. It is asked when the
// first record of a judged benchmark is read, before the engine has sent
// anything: a record that passes through failed is written under it too.
func modelName(r *app.Run, opt infer.Options) (string, error) {
	if opt.Model != "" {
		return opt.Model, nil
	}
	c := oai.New(1, opt.ConnectTimeout, opt.APIKey)
	defer c.Close()
	var errs []string
	for _, u := range opt.BaseURLs {
		base, err := oai.NormalizeBase(u)
		if err != nil {
			return "", app.Usagef("--judge-base-url: %v", err)
		}
		ms, err := opt.Models.Ask(r.Ctx, c, base, max(opt.ConnectTimeout, 10*time.Second))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", oai.Label(base), err))
			continue
		}
		return infer.OnlyModel(base, ms, opt.Role)
	}
	if len(errs) == 0 {
		return "", app.Usagef("every judged record names its judge model: give --judge-model (or --judge-base-url to ask the endpoint)")
	}
	return "", fmt.Errorf("no judge endpoint said which model it serves (GET /v1/models: %s): give --judge-model", strings.Join(errs, "; "))
}
