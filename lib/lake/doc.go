// Package lake writes a run's records as a Hive-partitioned folder,
// FIELD=value/part-NNNNN.jsonl.zst with _manifest.json beside the folders,
// and reads such a folder back. Its manifest carries the run's provenance
// (lib/provenance), whose run id ties the folder, and the metric rows made
// from it, to their inputs and settings.
package lake
