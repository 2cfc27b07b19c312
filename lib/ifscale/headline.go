package ifscale

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// paperDensities are the densities of the paper's headline table.
var paperDensities = []float64{10, 50, 100, 250, 500}

// maxHeadline is how many densities the headline table shows before it
// falls back to the paper's five: a sweep of every tenth density from 10 to
// 500 would make it fifty columns wide.
const maxHeadline = 8

// headlineDensities picks the headline table's columns from the densities
// that were run: all of them when they fit, else the paper's five that were
// run with the smallest and largest run (so the table spans the sweep). The
// note says which were left out, and where they are: a table never drops a
// density silently.
func headlineDensities(present []float64) (cols []float64, note string) {
	all := slices.Clone(present)
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) <= maxHeadline {
		return all, ""
	}
	for _, n := range all {
		if slices.Contains(paperDensities, n) || n == all[0] || n == all[len(all)-1] {
			cols = append(cols, n)
		}
	}
	var shown []string
	for _, n := range cols {
		shown = append(shown, strconv.FormatFloat(n, 'f', -1, 64))
	}
	return cols, fmt.Sprintf("%d densities were run; this table shows N = %s (the paper's and the ends of the sweep), the table of metrics per density every one.", len(all), strings.Join(shown, ", "))
}
