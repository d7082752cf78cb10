// Command throughput measures GET-MASTER-ADDR-BY-NAME throughput and
// latency of redis-sentinel and gosentinel with redis-benchmark and merges
// the results into -out.
package main

import (
	"context"
	"io"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/bench/internal/runner"
)

func main() {
	runner.Main("throughput", 5, nil, func(ctx context.Context, cfg runner.Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section)) {
		emit(runner.Throughput(ctx, cfg, real, ours, out))
	})
}
