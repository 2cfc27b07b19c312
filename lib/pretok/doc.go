// Package pretok matches the regular expressions of tokenizer.json files
// (a Split pre-tokenizer's pattern, a Replace normalizer's) as the Hugging
// Face tokenizers library does: its Oniguruma engine, Ruby syntax (^ and $
// at line ends, . not matching \n), a backtracking search that takes the
// first alternative that matches, and character classes from the Unicode
// version the library uses (16.0, lib/ucd), not Go's. A match that runs
// past a time limit, or whose context ends, stops with an error: a pattern
// that backtracks catastrophically must not hang a run.
//
// Go's regexp (RE2) has no look-around, and regexp2, a .NET port, uses Go's
// Unicode tables, folds case otherwise and has no Oniguruma semantics for
// ^, $, \h or \w; both gave pieces other than the server's.
package pretok
