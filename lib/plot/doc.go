// Package plot turns metric rows into the papers' figures: first the figure
// data (what is plotted, tested by golden files), then SVG drawn with
// gonum/plot, then one self-contained HTML page with a caption and a table
// of the same numbers under every figure.
package plot
