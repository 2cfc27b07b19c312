// Package stream reads and writes JSON Lines files: plain, gzip or zstd, sniffed
// from the first bytes on input and chosen by flag, extension or the input on
// output.
package stream
