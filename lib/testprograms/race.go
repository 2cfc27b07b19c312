//go:build race

package testprograms

// Race reports whether the tests run under the race detector.
const Race = true
