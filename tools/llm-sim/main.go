// Command llm-sim is an OpenAI-compatible test server (docs/llm-sim.md); the
// program is lib/programs.LLMSim, the server lib/sim.
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.LLMSim(benches.All)) }
