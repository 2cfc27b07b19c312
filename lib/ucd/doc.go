// Package ucd holds Unicode character tables at pinned versions. Go's
// unicode package follows one version (15.0 for Go 1.26), while the programs
// ifkit must agree with each follow their own: the tokenizers servers run
// match their pre-tokenizer patterns with Unicode 16.0, Rust's char methods
// in the Hugging Face build use 17.0, its normalizers 9.0, and the official
// scorers ran on Python 3.10, which is Unicode 13.0. A character added to
// Unicode after a version is unassigned (Cn) in that version's tables, as
// it is to the program that used it.
//
// The tables come from Unicode's data as the @unicode/unicode-X npm packages
// publish it; gen/ writes them and the output is committed.
package ucd
