package testbin

// Version is what the programs under test say they are (--version), so
// scripts can check it.
const Version = "test-version"

// Dir holds the programs under test while the tests run: links to the test
// binary, made by lib/testprograms.Main.
var Dir string
