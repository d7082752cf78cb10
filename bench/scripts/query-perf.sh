#!/bin/bash
# query-perf.sh BIN OUT N — one sentinel (BIN, env assignments and arguments
# allowed, the config file is appended) watching one master; perf record -F
# 5000 -g over exactly one redis-benchmark -c 50 -n N run of SENTINEL
# GET-MASTER-ADDR-BY-NAME; prints CPU per request from /proc. Sort the
# samples with perf-buckets.py OUT (docs/bench.md, "The client port, round four").
BIN=$1; OUT=$2; N=$3
D=$(mktemp -d /tmp/query-perf.XXXX)
MP=$(( 10000 + RANDOM % 20000 )); SP=$((MP+1))
redis-server --port $MP --save '' --appendonly no >/dev/null 2>&1 & MPID=$!
sleep 0.3
printf "port $SP\nbind 127.0.0.1\ndir $D\nsentinel monitor mymaster 127.0.0.1 $MP 1\nsentinel down-after-milliseconds mymaster 5000\n" > $D/s.conf
$BIN $D/s.conf >$D/s.log 2>&1 & SPID=$!
sleep 1.5
redis-benchmark -h 127.0.0.1 -p $SP -c 50 -n 20000 -q SENTINEL GET-MASTER-ADDR-BY-NAME mymaster >/dev/null 2>&1
perf record -F 5000 -g -p $SPID -o $OUT >/dev/null 2>&1 &
PP=$!
sleep 0.3
c0=$(awk '{print $14+$15}' /proc/$SPID/stat)
redis-benchmark -h 127.0.0.1 -p $SP -c 50 -n $N --csv SENTINEL GET-MASTER-ADDR-BY-NAME mymaster 2>/dev/null | tail -1 | cut -d, -f1,2
c1=$(awk '{print $14+$15}' /proc/$SPID/stat)
kill -INT $PP; wait $PP
echo "$BIN us/req=$(echo "($c1-$c0)*10000/$N" | bc -l | cut -c1-5)"
kill $SPID $MPID; wait 2>/dev/null; rm -rf $D
