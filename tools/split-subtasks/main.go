// Command split-subtasks cuts long responses into one child record per check
// (lib/programs.SplitSubtasks).
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.SplitSubtasks(benches.All)) }
