// Command judge scores records by benchmark.
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/eifbench"
	"github.com/ifkit/ifkit/lib/ifscale"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/longins"
)

var scorers = map[string]judge.Factory{
	"eifbench":     eifbench.NewScorer,
	"ifscale":      ifscale.NewScorer,
	"longins":      longins.NewScorer,
	"longgenbench": longgenbench.NewScorer,
	"lifbench":     lifbench.NewScorer,
}

func main() {
	app.Main(app.Tool{
		Name:      "judge",
		Usage:     "score responses: rubric programs, keyword matching, ID-set F1, or an LLM judge per check",
		ArgsUsage: "[FILE...]",
		Description: `Routes each record by its "bench" field. LIFBench, IFScale and LongIns are scored
by deterministic programs; LongGenBench and EifBench checks by a judge model
(--judge-base-url, --judge-model) with the same client, retries, concurrency and
resume as infer-batch. Records that failed earlier pass through unjudged and are
counted by aggregate-ifs. The judge's calls can also run offline as an OpenAI Batch:
--batch-export writes them as Batch request lines, --batch-import FILE reads the results back,
--batch-api does the round trip on the judge endpoint's /v1/batches.

Example:
  infer-batch -j 64 req.jsonl.zst | judge | aggregate-ifs
  split-subtasks out.jsonl.zst | judge --judge-base-url http://judge:8000/v1 --judge-model qwen -j 32`,
		Flags:  judge.Flags(),
		Paid:   judge.Paid,
		Action: judge.Action(scorers),
	})
}
