// Package lake writes a run's records as a Hive-partitioned folder,
// FIELD=value/part-NNNNN.jsonl.zst with _manifest.json beside the folders,
// reads such a folder back, and computes the run id that ties the folder, and
// the metric rows made from it, to their inputs and settings (docs/records.md,
// "_manifest.json of a partitioned run"; docs/lake.md).
package lake
