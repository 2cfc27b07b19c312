// Package pandas computes the reductions the benchmarks' official code gets
// from pandas (groupby mean and std), with pandas' own float arithmetic, so
// that metrics match the published files to the last bit (IFScale's). The
// result depends on the order of the terms, as pandas' does; lib/fsum's
// correctly rounded sums are the order-free alternative.
package pandas
