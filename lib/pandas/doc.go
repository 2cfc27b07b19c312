// Package pandas computes the reductions the benchmarks' official code gets
// from pandas (groupby mean and std), with pandas' own float arithmetic, so
// that metrics match the published files to the last bit.
package pandas
