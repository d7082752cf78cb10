// Command storm measures a reconnect storm (2000 fresh connections each
// asking GET-MASTER-ADDR-BY-NAME once) against redis-sentinel and
// gosentinel and merges the results into -out.
package main

import (
	"context"
	"io"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/bench/internal/runner"
)

func main() {
	runner.Main("storm", 5, nil, func(_ context.Context, cfg runner.Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section)) {
		emit(runner.Storm(cfg, real, ours, out))
	})
}
