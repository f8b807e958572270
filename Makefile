# SPDX-License-Identifier: GPL-3.0-or-later
# make demo   build a release binary and run the whole pipeline on generated example data
# make test   lint and run every test (what CI runs)
# make bench  measure throughput next to `openssl speed`
# make bench-replication  Litestream's figures for docs/operations.md (reusing make bench's ledger)

SWIFT ?= swift
PARALLEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build release test lint format demo bench bench-replication embed container-smoke clean

all: build

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# The Swift runtime linked in, as in the container: the binary starts 10 ms sooner than with
# the shared libraries.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

lint:
	$(SWIFT) format lint --recursive --strict Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

test: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel --num-workers $(PARALLEL)

demo: release
	scripts/demo .build/release/tipledger

bench: deps
	scripts/bench

bench-replication: deps
	scripts/bench-replication

embed:
	scripts/embed

clean:
	rm -rf .build
