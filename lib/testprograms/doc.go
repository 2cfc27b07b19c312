// Package testprograms makes a test binary double as the seven programs, for
// the tests that run them as a user would (CLI scripts, pipeline scripts,
// benchmark scripts): no separate build, the programs are the code under
// test (so go test's cache sees them), and they run with the test's -race.
package testprograms
