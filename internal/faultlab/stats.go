package faultlab

import (
	"math"
	"sort"
)

// Percentile returns the p-th percentile (0..100) of xs by the
// nearest-rank method (so p95 of 3 runs is the largest); values < 0 mean
// "never happened" and are left out. It returns -1 for no values.
func Percentile(xs []float64, p float64) float64 {
	var v []float64
	for _, x := range xs {
		if x >= 0 {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return -1
	}
	sort.Float64s(v)
	rank := int(math.Ceil(p / 100 * float64(len(v))))
	if rank < 1 {
		rank = 1
	}
	return v[rank-1]
}

// Stat is the p50/p95 of one figure over runs, and how many runs had it.
type Stat struct {
	P50, P95 float64
	N, Of    int
}

func statOf(rs []RunResult, f func(*RunResult) float64) Stat {
	var xs []float64
	for i := range rs {
		xs = append(xs, f(&rs[i]))
	}
	st := Stat{P50: Percentile(xs, 50), P95: Percentile(xs, 95), Of: len(xs)}
	for _, x := range xs {
		if x >= 0 {
			st.N++
		}
	}
	return st
}
