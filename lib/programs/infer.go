package programs

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/infer"
	"github.com/ifkit/ifkit/lib/oai"
)

const inferDescription = `Sends each record's "request" (the body of an OpenAI-compatible request without
"model") to /v1/chat/completions when it has "messages", to /v1/completions when it
has "prompt", forwarding every field. The record gets "model" and "response"
{text, reasoning, finish_reason, usage, latency_ms, ttft_ms (--stream), attempts,
endpoint, prompt_tokens_sent, tokenizer, server_truncated, cut_check, cut_margin, runaway}, or "error" {stage, kind, status, message, attempts}: no record is dropped.
Records that already carry "error" pass through.

A reply whose text holds a reasoning trace (<think>…</think>, gpt-oss harmony
channels) gets the answer after it as "text", the trace in "reasoning" and the text
as received in "raw_text"; one that ended inside its trace fails with
reasoning_unfinished (--reasoning keep: the text as received; docs/records.md).

-j N requests are in flight across all --base-url endpoints (least in flight first; an
endpoint that keeps failing is paused and probed again later). Network errors,
timeouts, truncated or bad replies and ` + oai.RetriedStatuses + ` are retried with full-jitter
exponential back-off, honouring Retry-After; ` + oai.FinalStatuses + `, any other 4xx
and length cut-offs are not. On 429 the concurrency limit drops and grows back (--adaptive). Output is in input order through
a reorder window of 16 × -j records (--unordered: completion order).

Resume: a killed or interrupted -o FILE run leaves FILE.partial and FILE.partial.journal
(the answers not yet in FILE.partial; a run killed early may leave only one of them); run
the same command with --resume and the records already answered for the same request
(and --model) are written in their input position, not sent again; changed requests are
sent again, and the answers of ids no longer in the input are moved to FILE.partial.aside
(--retry-errors re-sends those that ended with "error").
A kill -9 loses at most the -j requests in flight. Writing to stdout, use --resume-from
with the earlier output; its last seconds may be lost, since only -o keeps a journal.
SIGTERM/SIGINT stop reading, let requests in flight finish for --grace, write what is
done, and exit 143/130.

Token counts: every prompt is counted (response.prompt_tokens_sent) by --tokenizer:
o200k_base by default (response.tokenizer "o200k_base~", an estimate for non-OpenAI
models), a model's tokenizer.json FILE (exact, offline), or "server" (the endpoint's
tokenize API: vLLM, SGLang, llama.cpp, TGI). When the server's usage.prompt_tokens falls
short of that count beyond its margin (exact: 16 + 1 %; an estimate is calibrated against
the server's counts within the run), or fills the server's context (Ollama keeps exactly
num_ctx tokens), the server cut the prompt: the response gets server_truncated, cut_check
says how well it was checked, and the summary and --stats count them. A reply stopped at
finish_reason length by the server's own limit, not the request's, gets runaway.

Pre-flight: with --max-model-len L a request whose prompt tokens plus max_tokens exceed
L is not sent and gets an error record; with --truncate-context its context part (the
text before the last --context-marker, "Instruction:" by default, in the longest
message) is cut from the right and counted again until it fits, and
response.context_cut_tokens says by how much. docs/infer-batch.md, "Real servers", has
the flags each server wants.

OpenAI Batch: --batch-export writes Batch request lines instead of calling (for a provider's
Batch API or vllm run-batch); --batch-import FILE writes the records from their result lines,
as an online run would; --batch-api does the round trip on the endpoint's /v1/files and
/v1/batches (with -o FILE, --resume polls the same batches after a kill). --dispatch prefix
(the default) sends prompts that start alike together, for a server's prefix cache; the
output order is the input's either way.

The API key comes from OPENAI_API_KEY or --api-key-file, never from argv, and is never
written to records, logs or --stats.

Examples:
  gen-context lifbench --lengths 4k,8k | expand-templates \
    | infer-batch --base-url http://127.0.0.1:8000/v1 -j 64 -o responses.jsonl.zst
  judge responses.jsonl.zst | aggregate-ifs

  # vLLM on two GPU nodes, resumable under Slurm:
  #   vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --max-num-seqs 256
  export OPENAI_BASE_URL=http://gpu1:8000/v1,http://gpu2:8000/v1 OPENAI_API_KEY=EMPTY
  infer-batch -j 256 --model Qwen/Qwen2.5-7B-Instruct --tokenizer server --max-model-len 32768 \
    --truncate-context --stats stats.json --resume -o responses.jsonl.zst requests.jsonl.zst

  # offline with vLLM's batch runner:
  infer-batch --batch-export --model Qwen/Qwen2.5-7B-Instruct requests.jsonl.zst > batch.jsonl
  vllm run-batch -i batch.jsonl -o results.jsonl --model Qwen/Qwen2.5-7B-Instruct
  infer-batch --batch-import results.jsonl -o replies.jsonl.zst requests.jsonl.zst`

// InferBatch is infer-batch; it needs no benchmark, as it sends any
// record's request.
func InferBatch() app.Tool {
	return app.Tool{
		Name:        "infer-batch",
		Usage:       "send each record's request to OpenAI-compatible endpoints and write the response",
		ArgsUsage:   "[FILE...]",
		Description: inferDescription,
		Flags:       infer.Flags(""),
		Paid:        infer.Paid,
		Action:      infer.Batch,
	}
}
