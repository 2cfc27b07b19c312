// Package aggregate reduces judged records to each benchmark's metrics. It
// routes every record to the aggregator of its bench and prints the results
// in the format asked for.
package aggregate
