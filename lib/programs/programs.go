package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
)

// check refuses a list of benchmarks the programs cannot route by: a
// mistake in the registry, so it stops the program before it parses a flag.
func check(bs []bench.Bench) {
	if err := bench.Check(bs); err != nil {
		panic(err)
	}
}

// All are the seven programs over bs, in pipeline order.
func All(bs []bench.Bench) []app.Tool {
	return []app.Tool{GenContext(bs), ExpandTemplates(bs), InferBatch(), SplitSubtasks(bs), Judge(bs), AggregateIFS(bs), LLMSim(bs)}
}
