package harness

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// BenchResult is one line of redis-benchmark's CSV output.
type BenchResult struct {
	RPS   float64 // requests per second
	AvgMs float64
	P50Ms float64
	P99Ms float64
	MaxMs float64
}

// ErrBenchOutput is returned when redis-benchmark's output does not parse.
var ErrBenchOutput = errors.New("unexpected redis-benchmark output")

// RedisBenchmark runs redis-benchmark against addr (host:port) with the
// given number of clients, pipeline depth and requests, benchmarking the
// command args, and parses its --csv output.
func RedisBenchmark(ctx context.Context, host string, port, clients, pipeline, requests int, args ...string) (BenchResult, error) {
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return BenchResult{}, fmt.Errorf("redis-benchmark: %w", err)
	}
	// redis-benchmark has no timeout of its own: bound it for a sentinel
	// that stops answering.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmdArgs := []string{"-h", host, "-p", strconv.Itoa(port), "-c", strconv.Itoa(clients),
		"-n", strconv.Itoa(requests), "-P", strconv.Itoa(pipeline), "--csv"}
	cmdArgs = append(cmdArgs, args...)
	cmd := exec.CommandContext(ctx, bin, cmdArgs...)
	out, err := cmd.Output() // stderr carries "Could not fetch server CONFIG" against a sentinel
	if err != nil {
		return BenchResult{}, fmt.Errorf("redis-benchmark %s: %w", strings.Join(cmdArgs, " "), err)
	}
	return parseBenchCSV(string(out))
}

// parseBenchCSV parses redis-benchmark --csv output: a header line naming
// the columns and one line per test; the first test line is returned.
func parseBenchCSV(s string) (BenchResult, error) {
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		return BenchResult{}, fmt.Errorf("%w: %v", ErrBenchOutput, err)
	}
	if len(recs) < 2 {
		return BenchResult{}, fmt.Errorf("%w: %d csv records", ErrBenchOutput, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	row := recs[1]
	get := func(name string) (float64, error) {
		i, ok := col[name]
		if !ok || i >= len(row) {
			return 0, fmt.Errorf("%w: no column %q", ErrBenchOutput, name)
		}
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			return 0, fmt.Errorf("%w: column %q: %v", ErrBenchOutput, name, err)
		}
		return v, nil
	}
	var r BenchResult
	for _, f := range []struct {
		name string
		dst  *float64
	}{
		{"rps", &r.RPS}, {"avg_latency_ms", &r.AvgMs}, {"p50_latency_ms", &r.P50Ms},
		{"p99_latency_ms", &r.P99Ms}, {"max_latency_ms", &r.MaxMs},
	} {
		v, err := get(f.name)
		if err != nil {
			return BenchResult{}, err
		}
		*f.dst = v
	}
	return r, nil
}
