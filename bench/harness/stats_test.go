package harness

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                      string
		in                        []float64
		n                         int
		median, p90, min, maxWant float64
	}{
		{"empty", nil, 0, 0, 0, 0, 0},
		{"only NaN", []float64{nan, nan}, 0, 0, 0, 0, 0},
		{"one", []float64{7}, 1, 7, 7, 7, 7},
		{"odd unsorted", []float64{3, 1, 2}, 3, 2, 3, 1, 3},
		{"even", []float64{4, 1, 3, 2}, 4, 2.5, 4, 1, 4},
		{"NaN dropped", []float64{10, nan, 30, 20}, 3, 20, 30, 10, 30},
		{"ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 10, 5.5, 9, 1, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.in)
			if s.N != tt.n || s.Median != tt.median || s.P90 != tt.p90 || s.Min != tt.min || s.Max != tt.maxWant {
				t.Errorf("Summarize(%v) = %+v, want n=%d median=%v p90=%v min=%v max=%v", tt.in, s, tt.n, tt.median, tt.p90, tt.min, tt.maxWant)
			}
			if len(s.Values) != tt.n {
				t.Errorf("Values has %d entries, want %d", len(s.Values), tt.n)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		p    float64
		want float64
	}{{50, 5}, {90, 9}, {99, 10}, {100, 10}, {1, 1}, {0, 1}}
	for _, tt := range tests {
		if got := Percentile(v, tt.p); got != tt.want {
			t.Errorf("Percentile(1..10, %v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := Percentile(nil, 50); !math.IsNaN(got) {
		t.Errorf("Percentile(nil) = %v, want NaN", got)
	}
}
