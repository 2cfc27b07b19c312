// Package expand turns gen-context items into requests: it routes each item to
// its benchmark's expander, which emits one or more records with "request"
// and "gold" filled.
package expand
