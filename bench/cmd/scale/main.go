// Command scale measures CPU and RSS of redis-sentinel and gosentinel
// monitoring many masters, and the time until all are healthy, and merges
// the results into -out.
package main

import (
	"context"
	"flag"
	"io"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/bench/internal/runner"
)

func main() {
	var sc runner.ScaleConfig
	runner.Main("scale", 1, func(fs *flag.FlagSet) { runner.ScaleFlags(fs, &sc) },
		func(_ context.Context, cfg runner.Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section)) {
			emit(runner.Scale(cfg, sc, real, ours, out))
		})
}
