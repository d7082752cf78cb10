// Command failover measures failover latency of redis-sentinel and
// gosentinel side by side (SIGKILL and SIGSTOP of the master, for each
// -down-after value) and merges the results into -out.
package main

import (
	"context"
	"io"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/bench/internal/runner"
)

func main() {
	runner.Main("failover", 10, nil, func(_ context.Context, cfg runner.Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section)) {
		emit(runner.Failover(cfg, real, ours, out))
	})
}
