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
//     Markdown table.
//
// Rerun with:
//
//	go test ./bench/clientbench -run XXX -bench . -benchmem
//	GOSENTINEL_BENCH=1 go test ./bench/clientbench -run TestFailoverCompare -v
package clientbench
