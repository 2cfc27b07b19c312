// Package bench is the plug-in contract of a benchmark: a Bench value holds
// what one benchmark adds to each program (its gen-context subcommand,
// expander, splitter, scorer, aggregator and importers, report figures,
// llm-sim solvers, and the flags each of these reads). Every benchmark
// package exports one (lifbench.Benchmark, …), lib/benches lists them, and
// lib/programs builds the seven programs over that list; lib/plot, lib/sim
// and the stage frameworks (lib/expand, lib/split, lib/judge,
// lib/aggregate) know no benchmark by name.
//
// docs/architecture.md, "Adding a benchmark", walks through a new one;
// lib/programs/toy_test.go is a complete small one, run end to end.
package bench
