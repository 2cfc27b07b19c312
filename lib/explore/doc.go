// Package explore is the item explorer of aggregate-ifs' --html page: the
// records behind every figure, held in the page itself (each distinct
// context once, by content hash, everything gzip-compressed and decompressed
// by the browser on demand), a list that filters them and opens one, the
// items whose scores differ between two models or runs, and a header that
// says where each model's data came from. The figures are lib/plot's; a
// benchmark adds what only it knows (bench.Bench.Explore: Hooks).
package explore
