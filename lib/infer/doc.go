// Package infer is the inference engine of infer-batch and judge: it sends
// each record's request to one or more OpenAI-compatible endpoints with a
// bounded (and adaptive) number in flight, retries what can be retried,
// respects rate limits and context limits, writes results in input order
// through a bounded reorder window, resumes from an earlier output, and
// drains on SIGTERM. No record is ever lost: each input id comes out once,
// with its result or with "error".
//
// The engine's decisions, written down here (the layering around it:
// docs/architecture.md):
//
// Flags. Flags(prefix) = EndpointFlags(prefix) + EngineFlags(). Endpoint
// flags describe a server and its model and carry the role prefix
// ("judge-" gives --judge-base-url, --judge-model, --judge-api-key-file,
// --judge-stream, --judge-rpm, --judge-tpm, --judge-max-model-len,
// --judge-truncate-context, --judge-context-marker, --judge-tokenizer; env
// JUDGE_BASE_URL and JUDGE_API_KEY). Engine flags (-j, --resume, timeouts,
// retries, --stats, ...) are never prefixed: a program has one engine. The
// API key is read from the environment (OPENAI_API_KEY / JUDGE_API_KEY) or
// the key file only; it is sent as a Bearer token and redacted from any
// server message before it reaches a record, a log line or --stats.
//
// Retries. Network errors, timeouts, truncated streams, unparsable 2xx
// bodies, 408, 409, 429 and 5xx are retried, at most --max-retries times,
// after Retry-After (retry-after-ms preferred; capped by --retry-after-max)
// or a full-jitter exponential back-off. 400, 401, 403, 404, 413, 422 are
// final, and 400s that say the context is too long get kind context_length.
// A reply cut at max_tokens is a success with finish_reason "length"; one
// the server's own limit stopped is flagged runaway (cutcheck.go). A
// record's final error has stage (the tool), kind, status, message and
// attempts. A retry goes to another endpoint when there is one.
//
// Timings. response.latency_ms is the successful attempt, request to last
// byte; ttft_ms (with --stream) is to the first text or reasoning delta.
// Back-off time is not included; attempts says how many tries it took.
//
// Endpoints. Least in flight first. PauseAfter (5) network/timeout/5xx
// failures in a row pause an endpoint for 5 s, doubling per failed probe
// up to 2 min; when the pause ends one request probes it. If every
// endpoint is paused the soonest-to-recover one is used, so records fail
// through their own retries instead of waiting forever.
//
// Order and memory. Ordered output goes through a window of 16 × -j
// records (--window): dispatch blocks when the oldest unwritten record is
// that far behind, so memory is bounded by the window and one slow request
// does not stop the other -j-1 slots. --unordered writes as records finish.
//
// Resume and kill -9. See resume.go and journal.go: earlier outputs (FILE,
// FILE.partial, FILE.partial.journal, FILE.partial.resume-N, --resume-from;
// for -o DIR/ the folder's earlier parts, which lib/app sets aside, and
// DIR/_run.partial.*) are indexed at the start, answers win over errors, and --retry-errors drops
// the errors so they are sent again. The journal gets each answered record
// with one write() before its concurrency slot is released, so a kill -9
// loses at most the -j answers in flight. A journal line is what the run
// added (model, response or error) with the fingerprint of the request it
// answered (ifkit_journal_fp), not the request: --resume puts those fields
// back onto the input record with that id and fingerprint. (An earlier answer
// set aside because its id left the input keeps that form.) Earlier records are spilled to a
// plain file (FILE.partial.spill, or a temporary file for stdout; removed at
// the end) and only id -> offset, length, fingerprint, model stay in memory.
// An input record takes its id's earlier record, written in the input's
// position through the ordered writer, when the fingerprints match and, if
// --model was given and the earlier record names its model, the models do;
// otherwise it is sent. The answers of earlier ids that are not in the input
// are moved to FILE.partial.aside and counted in the log.
//
// The fingerprint is two CRC-32s (64 bits) over the exact bytes of fields that
// pass unchanged from input to output, so no field is added to records. For
// infer-batch it is "request", which is the body prepare returns (the engine
// adds "model" and may cut the context: those depend on flags, not on the
// record, and --model is compared on its own; --truncate-context and
// --max-model-len are not). A judge's call is built from the model's reply,
// so the judge role fingerprints "request" and "response": a new answer is
// judged again (a new --rubric or --judge-prompt is not seen). The judge's own model is judgement.judge.model ("model" is
// the model under test); records decided without a call have none and match
// any --judge-model. An earlier record with none of the fingerprinted fields
// (written by another tool) matches by id alone.
//
// Pre-flight and truncation. Prompts are counted with --tokenizer (count.go):
// o200k_base by default (an estimate for other model families), a
// tokenizer.json (exact), or the server's tokenize API; a chat prompt is its
// message texts + 4 per message + 3 unless the server counts the template.
// --truncate-context cuts the longest message (chat) or the prompt, then
// counts again until the count fits: the text before the last --context-marker
// ("Instruction:", "Instructions:", as in LIFBench's templates; the blank
// space before the marker stays with the instruction), or before the last
// blank line when there is no marker, loses tokens from its right end, as
// LIFBench truncates its context and keeps the instruction. A prompt with
// neither cannot be cut and fails with kind context_length.
//
// Cache. --cache DIR (lib/cache; cached.go here) keys a call by its body as
// sent (after the pre-flight cut) and the model the server reports; a
// builder looks the key up ahead of the slot and the worker writes the
// entry's reply (response.cached) instead of calling. A reply is stored once
// the record kept it without an error, unless the server cut its prompt.
// With --model the start-up check waits for the first request to send, so a
// run the cache answers whole needs no endpoint. The batch modes share it
// (batchmode.go, batchrun.go). The account (answers paid, from the cache and
// from --resume; tokens; --price) is the summary's, --stats' and, through
// app.Run.SetUsage, the manifests'; --dry-run (dryrun.go) computes it ahead.
//
// Silent truncation. Every reply passes the cut check on its way out
// (cutcheck.go; lib/cuts decides): server_truncated when the server counted
// fewer prompt tokens than were sent beyond the count's margin (calibrated
// within the run for an estimate), or as many as its context holds; the
// first five are logged, the summary and --stats count and name them, and
// cut_check says how well each record was checked.
package infer
