// Package stats computes confidence intervals and paired comparisons for
// metrics of nested data, where items are not independent: the prompts built
// on one context, the checks of one generation, the constraints of one task
// move together. A sample is a list of independent units, each holding the
// sufficient statistics of its items summed (sparse vectors over Vars); a
// metric is a function of the statistics summed over a sample (an
// Estimator), so a ratio of sums stays a ratio of sums and a stability
// statistic is recomputed whole on every resample. Intervals come from the
// cluster bootstrap over units (stratified by the design where every stratum
// has two units or more) with Hesterberg's expanded percentile, which
// corrects the percentile interval's narrowness in small samples; paired
// comparisons from the same resampling of the units both arms share, with a
// permutation p-value (the two arms' statistics swapped within units), Holm
// or Benjamini–Hochberg adjustment, and the minimum detectable difference at
// a given power. Nothing here knows records or benchmarks.
package stats
