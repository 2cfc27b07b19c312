package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/judge"
)

func judgePlug(b bench.Bench) bench.Plug[judge.Factory] { return b.Judge }

// Judge is judge: the benchmarks' scorers, and the LLM judge's endpoint and
// engine for the checks that need one.
func Judge(bs []bench.Bench) app.Tool {
	check(bs)
	var judged []judge.Judged
	for _, b := range bs {
		if len(b.JudgeModes) > 0 {
			judged = append(judged, judge.Judged{Title: b.Title, Modes: b.JudgeModes, Prompts: b.JudgePrompts, Bench: b.Name})
		}
	}
	return app.Tool{
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
		Flags: bench.Flags(judge.Flags(judged), bs, judgePlug),
		Paid:  judge.Paid,
		Action: func(r *app.Run) error {
			reg, err := bench.Open(r, bs, judgePlug)
			if err != nil {
				return err
			}
			return judge.Action(reg, judged)(r)
		},
	}
}
