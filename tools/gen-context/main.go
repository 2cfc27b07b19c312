// Command gen-context builds what each benchmark item is about: contexts,
// keyword lists, exams, task specs; deterministically from --seed, or imported
// from the official release files.
package main

import "github.com/ifkit/ifkit/lib/app"

func main() {
	app.Main(app.Tool{
		Name:  "gen-context",
		Usage: "generate benchmark items (contexts, keyword lists, exams, task specs) as JSONL",
		Description: `One subcommand per benchmark; each writes one record per item, deterministic
from --seed, or imports the official files with --official FILE.

Example:
  gen-context lifbench --lengths 4k,8k | expand-templates | infer-batch -j 64 \
    | judge | aggregate-ifs --format md`,
		Kind: app.Generator,
		// One file per benchmark in this folder defines its subcommand.
		Commands: []*app.Command{
			lifbenchCommand(),
			longgenbenchCommand(),
			ifscaleCommand(),
			eifbenchCommand(),
			longinsCommand(),
			fetchOfficialCommand(),
		},
	})
}
