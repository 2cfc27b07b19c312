// Package pystr follows the Python str semantics the official scorers
// depend on where Go's differ: which characters are whitespace (str.split,
// str.strip), str.lower's full case mapping with the word-final sigma, the
// Unicode decimal digits that re's \d and int() accept, re's \w,
// str.isprintable and identifier characters.
//
// The character classes are those of Python 3.10, which the benchmarks'
// authors ran: Unicode 13.0.0 (lib/ucd's Unicode13), not Go's 15.0, so a
// character added to Unicode since (a letter of Kawi, a digit of Garay) is
// what it was to their scorer: unassigned, neither a letter nor a digit.
package pystr
