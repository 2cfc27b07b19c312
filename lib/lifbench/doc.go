// Package lifbench runs LIFBench (Wu et al., ACL 2025): long contexts in
// three scenarios (List, MultiDoc, OneDoc) at exact token budgets, eleven
// instruction tasks expanded over expressions × variables × lengths, the
// LIFEval rubric (every score point with its weight and capabilities), and
// the ARS, IFP and IFS metrics.
//
// The files split by stage: gen.go (contexts), corpus.go (the project's own
// procedural text), official.go (importing official context files),
// templates.go and expand.go (requests), score*.go (the rubric), aggregate.go
// and import.go (metrics), sim.go (the llm-sim solver).
package lifbench
