// Module tokenizers checks ifkit's token counts id for id against the
// implementations servers run: OpenAI's tiktoken and Hugging Face's
// tokenizers, installed with npm with real models' tokenizer.json files. It
// is its own module so that npm and its packages stay out of ifkit's build;
// `make test` runs it, or says why it skips it.
module github.com/ifkit/ifkit/tests/tokenizers

go 1.26.8

require github.com/ifkit/ifkit v0.0.0

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	golang.org/x/text v0.28.0 // indirect
)

replace github.com/ifkit/ifkit => ../..
