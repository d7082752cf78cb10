package harness

import (
	"math"
	"sort"
)

// Summary is the distribution of one figure over several runs.
type Summary struct {
	N      int       `json:"n"`
	Median float64   `json:"median"`
	P90    float64   `json:"p90"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Values []float64 `json:"values"`
}

// Summarize computes median, p90 (nearest rank), min and max of xs. NaN
// values (a run in which the figure was not observed) are dropped; the
// result has N == 0 when nothing is left.
func Summarize(xs []float64) Summary {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	s := Summary{N: len(v), Values: append([]float64(nil), v...)}
	if len(v) == 0 {
		return s
	}
	sort.Float64s(v)
	s.Min, s.Max = v[0], v[len(v)-1]
	if len(v)%2 == 1 {
		s.Median = v[len(v)/2]
	} else {
		s.Median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	s.P90 = Percentile(v, 90)
	return s
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of the
// sorted slice v, or NaN when v is empty.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}
