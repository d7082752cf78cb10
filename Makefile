# gosentinel — see README.md.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
GOTEST_TIMEOUT ?= 18m
FUZZTIME ?= 3s

.PHONY: all build deps test test-short vet fuzz-smoke fuzz-long demo bench sim mutants lab lab-smoke clean

all: build

build:
	$(GO) build ./...

deps:
	@scripts/deps.sh

vet:
	$(GO) vet ./...

## test: what CI runs (.ci/run). vet + race tests (unit, simulation seeds,
## integration with real redis-server, interop with real redis-sentinel) +
## short fuzz runs of every parser. -count=1: test/conformance, interop and
## redissuite run binaries built from the tree, which go test's result
## cache does not see, so a cached pass could be stale.
test: deps vet
	$(GO) test -race -count=1 -timeout $(GOTEST_TIMEOUT) ./...
	$(GO) test -count=1 -run 'Alloc|NoJoin' ./internal/... ./client/...
	FUZZTIME=$(FUZZTIME) scripts/fuzz-smoke.sh

## test-short: unit tests only, no real processes.
test-short:
	$(GO) test -short ./...

fuzz-smoke:
	FUZZTIME=$(FUZZTIME) scripts/fuzz-smoke.sh

## fuzz-long: a long fuzz campaign, not part of test: every target in turn
## for FUZZ_SLICE, one worker, nice 19, until FUZZ_UNTIL (e.g. +4h or 15:20
## UTC); records each slice in FUZZ_LOG; FUZZ_KEEP=1 keeps the new corpus
## inputs in testdata/fuzz. See scripts/fuzz-long.sh, docs/security.md.
FUZZ_UNTIL ?= +1h
FUZZ_SLICE ?= 15m
fuzz-long:
	FUZZ_UNTIL=$(FUZZ_UNTIL) FUZZ_SLICE=$(FUZZ_SLICE) scripts/fuzz-long.sh

## demo: a local master, two replicas and three gosentinels, a failover drill.
demo: deps
	$(GO) run ./cmd/sentinelctl demo

## bench: side-by-side figures against redis-sentinel and go-redis.
bench: deps
	$(GO) run ./bench/cmd/benchall

## sim: many simulation seeds through the core (SEEDS=2000 START=1).
SEEDS ?= 2000
START ?= 1
sim:
	$(GO) run ./cmd/sentinelctl sim --seeds $(SEEDS) --start $(START)

## mutants: plant known bugs in a copy of the core and show the simulator catches each.
mutants:
	internal/sim/mutants/run.sh

## lab: the whole fault-lab scorecard (root): JSON in bench/results/lab,
## table in docs/reliability.md. LAB_PARALLEL labs at once (B9 and B9L
## still run alone, first); see docs/faultlab.md, Duration, for the
## measured wall time on this shared 2-core machine. LAB_PARALLEL=1 for
## timing figures free of the other labs' load. LAB_FLAGS adds flags, e.g.
## LAB_FLAGS="--scenario 'A*' --runs 5". See docs/faultlab.md.
LAB_FLAGS ?=
LAB_PARALLEL ?= 6
lab: deps
	$(GO) build -o bin/sentinelctl ./cmd/sentinelctl
	bin/sentinelctl lab --parallel $(LAB_PARALLEL) --out bench/results/lab --report docs/reliability.md $(LAB_FLAGS)

## lab-smoke: A1 A3 C1 C3 D1 E2 once each on redis-sentinel and gosentinel
## (root; about 6 min). Also part of make test (test/faultlab).
lab-smoke: deps
	$(GO) build -o bin/sentinelctl ./cmd/sentinelctl
	bin/sentinelctl lab --smoke --out bench/results/lab-smoke $(LAB_FLAGS)

clean:
	rm -rf bin
