// Package ifscale is IFScale (Jaroslawicz et al., arXiv 2507.11538): how
// keyword-inclusion accuracy falls as one prompt carries 10 to 500 "include
// the exact word" instructions. It generates the keyword lists, builds the
// prompts, classifies every keyword of a reply as the official analysis does
// (exact, modification, omission), aggregates the published metrics, imports
// the official per-sample file, and answers its prompts in llm-sim.
package ifscale
