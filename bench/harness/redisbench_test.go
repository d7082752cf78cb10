package harness

import (
	"errors"
	"testing"
)

func TestParseBenchCSV(t *testing.T) {
	const header = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"` + "\n"
	tests := []struct {
		name    string
		in      string
		want    BenchResult
		wantErr bool
	}{
		{"redis-benchmark 7.0", header + `"sentinel get-master-addr-by-name a","93457.95","0.283","0.072","0.271","0.375","0.695","1.687"` + "\n",
			BenchResult{RPS: 93457.95, AvgMs: 0.283, P50Ms: 0.271, P99Ms: 0.695, MaxMs: 1.687}, false},
		{"header only", header, BenchResult{}, true},
		{"missing column", `"test","rps"` + "\n" + `"x","1"` + "\n", BenchResult{}, true},
		{"not a number", header + `"x","fast","1","1","1","1","1","1"` + "\n", BenchResult{}, true},
		{"empty", "", BenchResult{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseBenchCSV(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBenchOutput) {
				t.Errorf("err = %v, want ErrBenchOutput", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
