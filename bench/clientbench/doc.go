// Package clientbench benchmarks the Sentinel-aware client in package
// client against go-redis, on real redis-server and redis-sentinel
// processes:
//
//   - BenchmarkHotPath: GET/SET ns/op and allocs/op through our client,
//     through a plain redis.NewClient to the same master, and through
//     go-redis's redis.NewFailoverClient;
//   - TestFailoverCompare (only with GOSENTINEL_BENCH=1): our client and
//     go-redis's NewFailoverClient side by side on the same failover,
//     reporting recovery time, failed writes and misplaced writes as a
//     Markdown table;
//   - TestLiarCompare (GOSENTINEL_BENCH=1): the same side by side with a
//     lagging or lying sentinel first in both clients' lists, and with
//     SUBSCRIBE refused (NOPERM): writes acknowledged by the old master
//     more than 1 s after the switch, by a replica, and event → first
//     write on the new master;
//   - TestKillToFirstWriteCompare, TestSentinelLoad, TestIdleSentinelTraffic
//     (GOSENTINEL_BENCH=1): see their doc comments.
//
// Rerun with:
//
//	go test ./bench/clientbench -run XXX -bench . -benchmem
//	GOSENTINEL_BENCH=1 go test ./bench/clientbench -run TestFailoverCompare -v
//	GOSENTINEL_BENCH=1 GOSENTINEL_BENCH_ROUNDS=5 go test ./bench/clientbench -run TestLiarCompare -v
package clientbench
