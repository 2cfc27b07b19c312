// Package testbin holds what the tests of several packages share: where the
// programs under test are (Dir, filled by lib/testprograms) and llm-sim
// started from there, the official reference files, a refused URL, orders
// of records. It imports no ifkit package, so any package's tests may use it.
package testbin
