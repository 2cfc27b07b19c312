package plot

// Internals the external tests (package plot_test) check.
var (
	HasData    = hasData
	Document   = document
	RoundTicks = roundTicks
	Caption    = caption
)
