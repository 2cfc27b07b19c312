// Package oai is a small OpenAI-compatible HTTP client for batch inference
// against vLLM, SGLang, TGI, llama.cpp, Ollama and OpenAI. It makes one attempt
// per call and classifies what went wrong; retries, balancing and rate limits
// belong to the caller (lib/infer), which knows about many requests at once.
// It also asks a server what it is and how long its context is (Identify,
// LoadedContext), from each server's own API.
package oai
