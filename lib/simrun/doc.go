// Package simrun runs the benchmarks in-process against llm-sim's solvers,
// many small runs a second: items made by gen-context and expand-templates,
// answered by the solvers directly (no server, no HTTP), split and judged by
// the benchmarks' own pieces (LLM-judged checks by the solvers' judge at
// full skill), and aggregated by aggregate-ifs itself. A model is a skill
// and a seed, so a population is known: the tests that check intervals and
// comparisons against known truth (and bench/stats, their full-size study)
// draw their runs from it.
package simrun
