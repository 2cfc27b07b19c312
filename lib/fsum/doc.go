// Package fsum adds float64 numbers exactly and rounds once, as Python's
// math.fsum does (Shewchuk's algorithm with CPython's final half-even
// correction). The sum is the exact sum correctly rounded, so it does not
// depend on the order of the terms: aggregates computed with it give the
// same bytes whatever order the records arrive in.
package fsum
