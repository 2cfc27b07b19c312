// Command gen-context builds what each benchmark item is about: contexts,
// keyword lists, exams, task specs; deterministically from --seed, or imported
// from the official release files (lib/programs.GenContext).
package main

import (
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

func main() { app.Main(programs.GenContext(benches.All)) }
