// Package harness runs side-by-side benchmarks of sentinel implementations
// (Debian's redis-sentinel and gosentinel) against real redis-server
// processes on loopback.
//
// Every function takes the sentinel binary as a parameter (an Impl), so the
// same measurement runs unchanged against any drop-in redis-sentinel. The
// package starts processes through internal/testutil; a benchmark main passes
// an Env, which implements testutil.TB outside of `go test`.
//
// The measurements are:
//
//   - failover: kill (SIGKILL) or pause (SIGSTOP) the master and time the
//     +sdown, +odown, +promoted-slave and +switch-master events received on
//     every sentinel (PSUBSCRIBE *), and the moment every sentinel answers
//     GET-MASTER-ADDR-BY-NAME with the same new address;
//   - throughput: redis-benchmark against GET-MASTER-ADDR-BY-NAME;
//   - storm: many fresh TCP connections each asking once;
//   - scale: CPU and RSS of a sentinel monitoring many masters, and the time
//     until all of them are healthy.
package harness
