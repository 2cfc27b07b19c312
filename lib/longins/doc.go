// Package longins is LongIns (Gavin et al., arXiv 2406.17588): an exam of
// concatenated question/answer pairs, about one in ten answered wrongly,
// and the model must list the numbers of the wrong ones. It builds exams
// from a task source at the official lengths (256…16384 tokens) in the GIST,
// LIST and LIMT modes, imports the official exam files, writes the prompts,
// scores replies with the official ID-set F1, aggregates F1 per length and
// accuracy by depth, and answers its prompts in llm-sim.
package longins
