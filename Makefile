# contactmap: see README.md.
GO ?= go
GOFLAGS ?=

.PHONY: all build test test-purego vet bench fuzz clean

all: build

build:
	$(GO) build $(GOFLAGS) ./...

# The README's test command: vet, the default (OpenBLAS, cgo) build, and the
# pure-Go gonum BLAS build, which must pass the same tests.
test: vet
	$(GO) test $(GOFLAGS) ./...
	$(GO) test $(GOFLAGS) -tags purego ./scnn/...

vet:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./...

# Benchmarks: conv forward+backward GFLOP/s, full vs symmetric.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./scnn/

clean:
	$(GO) clean ./...
