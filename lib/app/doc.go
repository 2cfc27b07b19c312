// Package app is the command-line layer every ifkit program shares: the common
// flags and exit codes (docs/cli.md), input and output streams, sharding,
// signal handling, progress and the closing summary. A tool supplies its own
// flags and an Action; app does the rest in the same way for all seven.
package app
