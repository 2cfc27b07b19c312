// Package report writes metric results: tidy rows (one metric value per line,
// for data lakes) and tables laid out like the papers' (Markdown, CSV).
package report
