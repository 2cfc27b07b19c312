// Package numpyrand reproduces numpy's legacy numpy.random.RandomState: the
// MT19937 generator seeded with init_genrand and the legacy bounded-integer
// shuffle behind RandomState.permutation. Python tools that sample with
// pandas' DataFrame.sample(n, random_state=seed) get RandomState(seed)
// .permutation(len)[:n], so this lets Go reproduce their samples exactly.
package numpyrand
