// Package official downloads and verifies the benchmarks' official release
// files: each is pinned (pins.tsv) to a commit of its authors' repository with
// its git blob id, and its size and sha256 where they are known, so a file is
// accepted only when its bytes are the pinned ones, whether this package
// fetched it or a user put it in place by hand.
//
// The folder of official files is laid out by benchmark and repository path:
// DIR/<bench>/<path in the repository>, e.g. DIR/lifbench/data/meta/tasks.json
// (docs/official.md).
package official
