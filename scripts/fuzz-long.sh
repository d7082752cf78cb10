#!/usr/bin/env bash
# Long fuzz campaign: rotates through the Fuzz* targets, FUZZ_SLICE each,
# until FUZZ_UNTIL, one worker per target (-parallel=1) at nice 19, and
# records every slice (wall time, executions, new corpus inputs, result).
# Not part of `make test` (that runs scripts/fuzz-smoke.sh); see
# docs/security.md, Fuzzing.
#
#   FUZZ_UNTIL=15:20 scripts/fuzz-long.sh            # until 15:20 (UTC, today)
#   FUZZ_UNTIL=+3h FUZZ_SLICE=20m scripts/fuzz-long.sh
#   FUZZ_TARGETS="internal/resp:FuzzReadCommand internal/core:FuzzParseInfo" \
#     FUZZ_UNTIL=+1h scripts/fuzz-long.sh
#   make fuzz-long FUZZ_UNTIL=+2h
#
# FUZZ_TARGETS: "dir:Target" words, in the order they are run (default:
#   the parsers of network input first, then every other target).
# FUZZ_LOG: the tab-separated record, appended (default
#   /tmp/fuzz-long.tsv): start, package dir, target, seconds fuzzing (the
#   engine's elapsed), seconds wall (with the build), executions, new
#   interesting inputs, result (ok / FAIL / engine-deadline / killed).
# FUZZ_KEEP=1: at the end, copy the inputs the fuzz engine found during
#   this campaign (its cache, $GOCACHE/fuzz) into the package's
#   testdata/fuzz/<Target>/, so that every `go test` replays them.
#
# A failing input is written by `go test` into testdata/fuzz/<Target>/ and
# printed; the campaign goes on with the next target and exits 1 at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

slice=${FUZZ_SLICE:-15m}
log=${FUZZ_LOG:-/tmp/fuzz-long.tsv}
until_arg=${FUZZ_UNTIL:?set FUZZ_UNTIL, e.g. 15:20 or +2h}
case "$until_arg" in
  +*) d=${until_arg#+}; deadline=$(( $(date +%s) + $(sed -E 's/h$/*3600/; s/m$/*60/; s/s$//' <<<"$d" | bc) )) ;;
  *) deadline=$(date -u -d "$until_arg" +%s) ;;
esac
slice_s=$(sed -E 's/h$/*3600/; s/m$/*60/; s/s$//' <<<"$slice" | bc)

default_targets="internal/resp:FuzzReadCommand internal/resp:FuzzReadValue \
internal/core:FuzzParseInfo internal/core:FuzzParseHello internal/link:FuzzPeerBytes \
client:FuzzReadReply internal/resp:FuzzSplitArgs internal/server:FuzzExec \
internal/server:FuzzACLRules internal/config:FuzzParse internal/redisargs:FuzzSplit \
internal/redisargs:FuzzSplitReference internal/glob:FuzzMatch internal/core:FuzzStep \
client:FuzzCommandMode"
targets=${FUZZ_TARGETS:-$default_targets}
for t in $targets; do
  grep -q "^func ${t#*:}(" "${t%%:*}"/*_test.go 2>/dev/null || { echo "fuzz-long: no $t" >&2; exit 2; }
done

start=$(date +%s)
marker=$(mktemp /tmp/fuzz-long.XXXXXX)
out=$(mktemp /tmp/fuzz-long-out.XXXXXX)
trap 'rm -f "$marker" "$out"' EXIT
failed=0
while :; do
  for t in $targets; do
    now=$(date +%s)
    left=$(( deadline - now ))
    # Stop when less than a minute is left: building the instrumented test
    # binary and the baseline coverage take tens of seconds on this machine.
    [ "$left" -lt 60 ] && break 2
    run=$(( left < slice_s ? left : slice_s ))
    dir=${t%%:*} fn=${t#*:}
    echo "fuzz-long: $(date -u +%H:%M:%S) ./$dir $fn ${run}s"
    t0=$(date +%s)
    nice -n 19 go test -run='^$' -fuzz="^${fn}\$" -fuzztime="${run}s" -parallel=1 "./$dir" >"$out" 2>&1
    rc=$?
    secs=$(( $(date +%s) - t0 ))
    last=$(grep -E '^fuzz: elapsed: .*execs: [0-9]+' "$out" | tail -1)
    execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
    newi=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
    # The engine's own elapsed time (e.g. 14m57s), without the build and
    # the baseline coverage run that the wall time includes.
    el=$(sed -nE 's/^fuzz: elapsed: ([0-9hms]+),.*/\1/p' <<<"$last")
    fsecs=$(sed -E 's/h/*3600+/; s/m/*60+/; s/s$//; s/\+$//' <<<"${el:-0s}" | bc)
    result=ok
    if [ "$rc" != 0 ]; then
      if grep -q 'Failing input written' "$out"; then
        result=FAIL failed=1
        cat "$out"
      elif grep -q 'context deadline exceeded' "$out"; then
        # The engine sometimes ends a time-bounded run this way on a loaded
        # machine while stopping; no input failed (scripts/fuzz-smoke.sh).
        result=engine-deadline
      elif grep -qE '^signal: (terminated|killed)' "$out"; then
        # Stopped from outside (a signal, the OOM killer), no input failed:
        # recorded, not a failure of the target.
        result=killed
      else
        result=FAIL failed=1
        cat "$out"
      fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u -d @"$t0" +%FT%TZ)" "$dir" "$fn" "$fsecs" "$secs" "${execs:-0}" "${newi:-0}" "$result" >>"$log"
    echo "fuzz-long: $fn fuzzing ${fsecs}s (wall ${secs}s) execs ${execs:-0} new ${newi:-0} $result"
  done
done

if [ "${FUZZ_KEEP:-0}" = 1 ]; then
  cache=$(go env GOCACHE)/fuzz
  mod=$(go list -m)
  for t in $targets; do
    dir=${t%%:*} fn=${t#*:}
    src="$cache/$mod/$dir/$fn"
    [ -d "$src" ] || continue
    mkdir -p "$dir/testdata/fuzz/$fn"
    n=0
    while IFS= read -r f; do
      [ -e "$dir/testdata/fuzz/$fn/$(basename "$f")" ] || { cp "$f" "$dir/testdata/fuzz/$fn/"; n=$((n+1)); }
    done < <(find "$src" -type f -newer "$marker")
    echo "fuzz-long: kept $n new inputs of $fn"
  done
fi

echo "fuzz-long: $(( ($(date +%s) - start) / 60 )) min; per target this campaign:"
awk -F'\t' -v s="$(date -u -d @"$start" +%FT%TZ)" '$1 >= s { sec[$3]+=$4; ex[$3]+=$6 } END { for (k in sec) printf "  %-20s %6d s %12d execs\n", k, sec[k], ex[k] }' "$log"
exit $failed
