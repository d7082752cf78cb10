package clientbench

import (
	"os"
	"strconv"
)

// envPositiveInt returns the positive integer in the environment variable
// name, or def when it is unset, not a number or not positive (the
// benchmarks' GOSENTINEL_BENCH_* knobs).
func envPositiveInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
