// Package testprograms makes a test binary double as the seven programs, for
// the tests that run them as a user would (CLI scripts, pipeline scripts,
// benchmark scripts): no separate build, and the programs are the code under
// test, so go test's cache sees them. Under -race, Main builds them without
// the race detector instead (see Main).
package testprograms
