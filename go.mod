module github.com/ifkit/ifkit

go 1.26.8

require (
	github.com/dlclark/regexp2 v1.10.0
	github.com/goccy/go-json v0.12.0
	github.com/klauspost/compress v1.20.3
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/rogpeppe/go-internal v1.16.0
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/term v0.47.0
	golang.org/x/text v0.28.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/google/uuid v1.3.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.35.0 // indirect
)
