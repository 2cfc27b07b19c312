// Package benches is the list of the benchmarks ifkit runs: the one place
// that names them. The seven programs, the report and llm-sim take this
// list (tools/*/main.go), so a benchmark is added by its own package and
// one line here (docs/architecture.md, "Adding a benchmark").
package benches
