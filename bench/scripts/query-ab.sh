#!/bin/bash
# query-ab.sh REPS NAME=CMD ... — GET-MASTER-ADDR-BY-NAME through redis-benchmark
# (-c 50, then -c 50 -P 16) against several sentinel binaries side by side:
# one redis-server master, one sentinel per NAME (CMD is the binary, env
# assignments allowed: "GOMAXPROCS=1 bin/gosentinel"), implementations
# rotated rep by rep. Prints req/s, mean and p99 latency (ms) and the
# sentinel's CPU per request (utime+stime from /proc, µs). Used for the
# before/after figures of docs/bench.md, e.g.
#   bench/scripts/query-ab.sh 3 real=redis-sentinel base=/tmp/gosentinel-old new=bin/gosentinel
# N1 / N16 override the request counts (default 100000 / 1000000).
# ab.sh REPS "label=CMD" ... : side by side, interleaved, P=1 and P=16; CMD is a sentinel binary command prefix (env ok)
REPS=$1; shift
D=$(mktemp -d /tmp/query-ab.XXXX)
MP=$(( 10000 + RANDOM % 20000 ))
redis-server --port $MP --save '' --appendonly no >/dev/null 2>&1 & MPID=$!
sleep 0.3
declare -a NAMES PORTS PIDS
i=0
for spec in "$@"; do
  name=${spec%%=*}; cmd=${spec#*=}; port=$((MP+1+i))
  printf "port $port\nbind 127.0.0.1\ndir $D\nsentinel monitor mymaster 127.0.0.1 $MP 1\nsentinel down-after-milliseconds mymaster 5000\n" > $D/$name.conf
  env $cmd $D/$name.conf >$D/$name.log 2>&1 & PIDS[$i]=$!
  NAMES[$i]=$name; PORTS[$i]=$port; i=$((i+1))
done
sleep 1.5
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq $REPS); do
 for j in $(seq 0 $((i-1))); do
  # rotate order each rep
  k=$(( (j + r) % i ))
  for pp in "1 ${N1:-100000}" "16 ${N16:-1000000}"; do set -- $pp
   c0=$(cpu ${PIDS[$k]})
   out=$(timeout 120 redis-benchmark -h 127.0.0.1 -p ${PORTS[$k]} -c 50 -n $2 -P $1 --csv SENTINEL GET-MASTER-ADDR-BY-NAME mymaster 2>/dev/null | tail -1 | cut -d, -f2,3,7 | tr -d '"')
   c1=$(cpu ${PIDS[$k]})
   echo "${NAMES[$k]} P=$1 rps,avg,p99=$out us/req=$(echo "($c1-$c0)*10000/$2" | bc -l | cut -c1-5)"
  done
 done
done
kill ${PIDS[@]} $MPID; wait 2>/dev/null; rm -rf $D
