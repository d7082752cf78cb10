package harness

import "testing"

func TestParseBenchCSV(t *testing.T) {
	const header = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"` + "\n"
	runParseCases(t, parseBenchCSV, ErrBenchOutput, []parseCase[BenchResult]{
		{"redis-benchmark 7.0", header + `"sentinel get-master-addr-by-name a","93457.95","0.283","0.072","0.271","0.375","0.695","1.687"` + "\n",
			BenchResult{RPS: 93457.95, AvgMs: 0.283, P50Ms: 0.271, P99Ms: 0.695, MaxMs: 1.687}, false},
		{"header only", header, BenchResult{}, true},
		{"missing column", `"test","rps"` + "\n" + `"x","1"` + "\n", BenchResult{}, true},
		{"not a number", header + `"x","fast","1","1","1","1","1","1"` + "\n", BenchResult{}, true},
		{"empty", "", BenchResult{}, true},
	})
}
