// Package sim is llm-sim: an OpenAI-compatible inference server used as a
// test double for ifkit's pipelines (docs/llm-sim.md). It serves
// /v1/chat/completions, /v1/completions and /v1/models with SSE streaming and
// usage, and POST /tokenize; models latency (time to first token, tokens per
// second, a concurrency cap with a queue) and injects faults (429 with
// Retry-After, 500, 503, connection resets, stalls, truncated and aborted
// replies). A context length (MaxModelLen) and a Profile make it behave like
// vLLM, Ollama, llama.cpp or OpenAI (docs/llm-sim.md).
//
// Benchmark packages plug in Solvers that recognise their prompts and answer
// them with a controllable skill, which can decay with prompt length so that
// pipelines produce meaningful curves. Everything it says is marked as
// simulated: the header "x-llm-sim: true" and system_fingerprint "llm-sim".
package sim
