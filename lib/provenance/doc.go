// Package provenance says where a run's output came from: the program, its
// settings and version, its inputs by content, where and when it ran, and
// the run id that hashes what makes the output what it is. The manifests of
// a folder of parts (lib/parts) and of a partitioned folder (lib/lake) both
// carry one, so they answer the same questions the same way.
package provenance
