// Package bytesize reads and writes sizes as the command lines spell them
// (--max-reply 64MiB, --cache-max-size 50GiB): bytes, or a whole number with
// a binary unit.
package bytesize
