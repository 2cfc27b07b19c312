// Package cost accounts for what a run of infer-batch or judge paid: the
// tokens sent and received as the servers count them, the answers paid for
// against those taken from the cache or an earlier output, and, with a
// price (--price), the money.
package cost
