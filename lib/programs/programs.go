package programs

import "github.com/ifkit/ifkit/lib/bench"

// check refuses a list of benchmarks the programs cannot route by: a
// mistake in the registry, so it stops the program before it parses a flag.
func check(bs []bench.Bench) {
	if err := bench.Check(bs); err != nil {
		panic(err)
	}
}
