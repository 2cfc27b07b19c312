// Package split cuts long responses into the parts a judge checks, one child
// record per check, routed by benchmark.
package split
