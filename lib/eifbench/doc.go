// Package eifbench runs EifBench (Zou et al., EMNLP 2025): one input with 6–12
// sub-instructions, each carrying several constraints, answered in a single
// reply; an LLM judge checks every constraint, and the metrics are
// constraint-level (CLA), instruction-level (ILA) and task-level accuracy.
//
// The stages: gen-context (the project's English sample set, or the official
// files through --official), expand-templates (one prompt asking for one
// marked answer per sub-instruction), split-subtasks (one child per
// sub-instruction × constraint), judge (yes/no per constraint), aggregate-ifs
// (Table 4 of the paper per model × subset, with breakdowns).
package eifbench
