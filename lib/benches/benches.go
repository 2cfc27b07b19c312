package benches

import (
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/eifbench"
	"github.com/ifkit/ifkit/lib/ifscale"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/longins"
)

// All are the benchmarks in the order the programs show them: gen-context's
// subcommands, the report's sections, llm-sim's solvers.
var All = []bench.Bench{
	lifbench.Benchmark,
	ifscale.Benchmark,
	longins.Benchmark,
	longgenbench.Benchmark,
	eifbench.Benchmark,
}
