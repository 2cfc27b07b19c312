// Package cache keeps paid replies, so that no run pays twice for the same
// request: infer-batch's and judge's calls (--cache DIR) share one cache,
// across output files, pipelines and machines.
//
// The key (key.go) is the model id, the canonical request (the prompt
// hashed, every other field sent as a setting), and a salt; the endpoint's
// URL only when the user says one model name means different models
// (--cache-by-endpoint). The layout is plain immutable files, one per
// entry, named by the key's sha256 in 256 shard folders:
//
//	DIR/v1/ab/ab0123….zst
//
// An entry is written to a temporary name in its shard folder and renamed
// into place, which is atomic on a local disk, NFS and Lustre alike, so a
// reader sees a whole entry or none, and writers need no lock: two that
// write one key write the same reply's bytes or two valid replies, and the
// last rename wins. Each entry is a zstd frame with its checksum that names
// its own key (entry.go): a torn, altered or misplaced file is a miss with a
// warning, never a reply. The writer also evicts (evict.go): entries older
// than --cache-max-age, then the oldest until the cache fits
// --cache-max-size. docs/cache.md is the user's side of all this.
package cache
