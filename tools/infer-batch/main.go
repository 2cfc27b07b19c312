// Command infer-batch sends each record's request to OpenAI-compatible
// endpoints and writes the response (lib/programs.InferBatch); the engine
// is lib/infer.
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.InferBatch()) }
