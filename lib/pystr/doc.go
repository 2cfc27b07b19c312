// Package pystr follows the Python str semantics the official scorers
// depend on where Go's differ: which characters are whitespace (str.split,
// str.strip), str.lower's full case mapping with the word-final sigma, and
// the Unicode decimal digits that re's \d and int() accept. Tables are those
// of Go's unicode package (Unicode 15.0; CPython 3.12 uses the same version).
package pystr
