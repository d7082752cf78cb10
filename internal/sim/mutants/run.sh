#!/bin/sh
# Mutation test of the simulator's checker (docs/sim.md): plants each bug
# listed in internal/sim/mutants_list_test.go, one at a time, in a copy of
# one internal/core file (go test -overlay; nothing in the tree changes),
# runs up to 100 seeds against it and prints the first seed and invariant
# that caught it. Fails if a mutant survives or its snippet is gone.
set -e
cd "$(dirname "$0")/../../.."
SIM_MUTANTS=1 exec nice -n 19 go test -timeout 2h -count=1 -run 'TestMutants$' -v ./internal/sim
