// Command judge scores records by benchmark (lib/programs.Judge).
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.Judge(benches.All)) }
