// Package programs defines the seven ifkit programs (their flags, help and
// actions) over a list of benchmarks: tools/<name>/main.go runs one of them
// over lib/benches.All, and a test can run them over another list, such as
// one with a test-only benchmark added.
package programs
