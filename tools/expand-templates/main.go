// Command expand-templates turns gen-context items into requests
// (lib/programs.ExpandTemplates).
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.ExpandTemplates(benches.All)) }
