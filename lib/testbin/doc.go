// Package testbin builds the seven programs once per test binary, for the
// tests that run them as a user would (CLI scripts, pipelines).
package testbin
