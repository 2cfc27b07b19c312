// Package cuts decides whether a server cut the prompt a reply answers,
// from what the reply and the server say, and how far that decision can be
// trusted.
//
// A server that cuts a prompt longer than its context (Ollama, llama.cpp
// builds that shift the context, SGLang with --allow-auto-truncate) says so
// only through usage.prompt_tokens: fewer tokens than the prompt has, or
// exactly its context. The client counts the prompt itself, exactly (the
// model's tokenizer.json, the server's tokenize API) or as an estimate
// (o200k_base for another model's vocabulary), so a cut shows as a shortfall
// larger than the count's uncertainty, or as a count that fills the context.
//
// An estimate's uncertainty is not fixed: another vocabulary counts the same
// text up to a quarter lower or three times higher than o200k_base. The
// Checker calibrates it against the server within the run: the ratio of the
// server's count to the client's on the replies that certainly were not cut
// (below the context, one message or a server that drops none) is the
// model's tokenizer ratio, and its spread over those replies is the margin.
// Until 16 such replies were seen an estimate's margin is the prior one (the
// server counted less than three quarters of the estimate), and a record
// not flagged then is "unchecked": its cut may have gone unseen.
//
// The context comes from the server (Identify in lib/oai) or the user
// (--max-model-len); when neither says, the Checker infers it from the
// replies: a count reached by several prompts of different lengths and by
// none longer is where the server cuts.
package cuts
