// Package reasoning is the one rule for replies of models that think before
// they answer: a reply whose text holds a reasoning trace is scored on the
// answer after it. Parse finds the trace (a leading <think>…</think>, with
// or without its opening tag, its <thinking> and <reasoning> variants, and
// gpt-oss's harmony channels); Rule applies the rule to one reply: the
// trace joins the reasoning the server split off itself, the answer becomes
// the text, the text as received is kept, and a trace that never ended is a
// failure of its own kind. infer-batch applies it to every reply it writes
// (online, --batch-import, --batch-api), judge to its judge model's replies,
// and judge and split-subtasks again to any record that still carries a trace
// (records made elsewhere): the rule is idempotent. docs/records.md describes
// the fields, docs/<bench>.md what it means for each benchmark.
package reasoning
