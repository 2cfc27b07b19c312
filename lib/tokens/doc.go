// Package tokens counts tokens offline: with tiktoken's BPE vocabularies,
// which ship embedded in the binary (an estimate for any model but OpenAI's),
// or with a Hugging Face tokenizer.json the user names (exact for that
// model's text). Nothing is downloaded at run time.
package tokens
