// Package batchapi is the OpenAI Batch format and API: the request lines
// infer-batch and judge export (custom_id, method, url, body), the result
// lines OpenAI's batches and `vllm run-batch` write (id, custom_id,
// response{status_code, request_id, body}, error), the /v1/files and
// /v1/batches objects, and a client for them. llm-sim serves the same
// objects, so the one set of types describes both sides.
package batchapi
