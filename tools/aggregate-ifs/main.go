// Command aggregate-ifs reduces judged records to each paper's metrics
// (lib/programs.AggregateIFS).
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.AggregateIFS(benches.All)) }
