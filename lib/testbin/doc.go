// Package testbin holds what the tests of several packages share: where the
// programs under test are (Dir, filled by lib/testprograms), the official
// reference files, a refused URL. It imports no ifkit package, so any
// package's tests may use it.
package testbin
