# SPDX-License-Identifier: GPL-3.0-or-later
# make demo   build a release binary and run the whole pipeline on generated example data
# make test   lint and run every test (what CI runs)
# make bench  measure throughput next to `openssl speed`
# make bench-replication  Litestream's figures for docs/operations.md (reusing make bench's ledger)
# make fuzz   run every fuzz target for FUZZ_SECONDS each (libFuzzer with AddressSanitizer)
# make sanitize  run the tests under AddressSanitizer, then ThreadSanitizer
# make container-smoke  build the Dockerfile with podman and run the image (needs root)

SWIFT ?= swift
PARALLEL ?= $(shell nproc 2>/dev/null || echo 2)
# Seconds each fuzz target runs; FUZZ_TARGETS picks some (verify json base64 webhook service
# catalog); FUZZ_SEEDED_CRASH=1 runs the self-test, which must fail (see docs/fuzzing.md).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_SEEDED_CRASH ?=
# Which sanitizers `make sanitize` runs, and `swift test` options for them (e.g. --filter).
SANITIZERS ?= address thread
SANITIZE_OPTIONS ?=

.PHONY: all deps build release test lint format demo bench bench-replication embed container-smoke clean fuzz \
	fuzz-selftest sanitize

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
	$(SWIFT) format lint --recursive --strict Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources

test: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel --num-workers $(PARALLEL)

fuzz: deps
	Fuzz/run --seconds $(FUZZ_SECONDS) $(if $(FUZZ_SEEDED_CRASH),--seeded-crash) $(FUZZ_TARGETS)

# The fuzzing self-test: with the JSON reader's depth limit lifted, the seeded input must crash
# and `make fuzz` must fail, saying so.
fuzz-selftest: deps
	@mkdir -p Fuzz/.build; if Fuzz/run --seeded-crash > Fuzz/.build/selftest.log 2>&1; then \
		cat Fuzz/.build/selftest.log; echo "fuzz self-test: the seeded crash was not caught" >&2; exit 1; \
	elif grep -q "stack-overflow" Fuzz/.build/selftest.log; then \
		echo "fuzz self-test: the seeded stack overflow was caught"; \
	else \
		cat Fuzz/.build/selftest.log; echo "fuzz self-test: the run failed without the seeded crash" >&2; exit 1; \
	fi

sanitize: deps
	@for sanitizer in $(SANITIZERS); do scripts/sanitize $$sanitizer $(SANITIZE_OPTIONS) || exit 1; done

demo: release
	scripts/demo .build/release/tipledger

# wrk loads serve for its rows; only the benchmark needs it.
bench: deps
	scripts/install-deps wrk
	scripts/bench

bench-replication: deps
	scripts/bench-replication

embed:
	scripts/embed

container-smoke:
	scripts/container-smoke

clean:
	rm -rf .build Fuzz/.build
