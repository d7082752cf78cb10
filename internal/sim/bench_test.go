package sim

import "testing"

// BenchmarkSeed measures one seed end to end (go test -bench Seed).
func BenchmarkSeed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Run(uint64(i%50)+1, false)
	}
}
