# gosentinel — see README.md.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
GOTEST_TIMEOUT ?= 18m
FUZZTIME ?= 3s

.PHONY: all build deps test test-short vet fuzz-smoke demo bench sim mutants clean

all: build

build:
	$(GO) build ./...

deps:
	@scripts/deps.sh

vet:
	$(GO) vet ./...

## test: what CI runs (.ci/run). vet + race tests (unit, simulation seeds,
## integration with real redis-server, interop with real redis-sentinel) +
## short fuzz runs of every parser.
test: deps vet
	$(GO) test -race -timeout $(GOTEST_TIMEOUT) ./...
	FUZZTIME=$(FUZZTIME) scripts/fuzz-smoke.sh

## test-short: unit tests only, no real processes.
test-short:
	$(GO) test -short ./...

fuzz-smoke:
	FUZZTIME=$(FUZZTIME) scripts/fuzz-smoke.sh

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

clean:
	rm -rf bin
