// Package progress draws one status line on stderr: redrawn in place on a
// terminal, otherwise a log record (text or JSON, as --log-format says) every
// LogEvery, so a batch log stays small and `tail -f` on it still shows how far
// a run is. Counters are read from a callback on a single ticker goroutine.
package progress
