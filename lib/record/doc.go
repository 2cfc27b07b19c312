// Package record is the ifkit record contract (docs/records.md): one JSON
// object per line, a required id, and every field a stage does not own kept as raw bytes.
package record
