package runtime

import (
	"runtime/metrics"
	"testing"
)

var sink [][]byte

// TestReleaseAfterWrite: a config write whose garbage is large next to the
// live heap is collected and its pages returned at once; a small one is
// left to the collector.
func TestReleaseAfterWrite(t *testing.T) {
	released := func() uint64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before, _ := heapStats()
	sink = nil
	for range 64 {
		sink = append(sink, make([]byte, 8<<10))
	}
	sink = nil
	if releaseAfterWrite(before) {
		t.Fatal("512 KiB of garbage: released, want left to the collector")
	}
	before, _ = heapStats()
	for range 1500 { // ~12 MiB, like a rewrite with 8 KiB master names
		sink = append(sink, make([]byte, 8<<10))
	}
	sink = nil
	rel := released()
	if !releaseAfterWrite(before) {
		t.Fatal("12 MiB of garbage: not released")
	}
	if got := released(); got < rel+8<<20 {
		t.Errorf("released heap grew by %d bytes, want at least 8 MiB", int64(got)-int64(rel))
	}
}
