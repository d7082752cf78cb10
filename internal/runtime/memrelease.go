package runtime

import (
	"runtime/debug"
	"runtime/metrics"
)

// bigGarbage is how much a single config write must allocate before its
// garbage is collected and returned to the system at once (see
// releaseAfterWrite).
const bigGarbage = 4 << 20

// heapStats reads the bytes allocated on the heap since the start and the
// live heap of the last collection.
func heapStats() (allocs, live uint64) {
	s := [2]metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() == metrics.KindUint64 {
		allocs = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = s[1].Value.Uint64()
	}
	return allocs, live
}

// releaseAfterWrite collects the garbage of a config write that allocated
// more than bigGarbage bytes and more than the live heap (allocsBefore is
// heapStats' count from before the write), and returns the freed pages
// to the system.
//
// A rewrite holds the old file, its lines and the new lines at once: with
// long master names (8 KiB names, 200 masters) that is ~10 MB for a live
// heap of ~4 MB. A collection that runs while they are live sets the next
// heap goal to twice that, so the heap grows to ~20 MiB before the next
// one, and the scavenger gives the free pages back over tens of seconds:
// the peak RSS of a later load (a SENTINEL RESET * storm) sat on top of
// them (docs/security.md, "Memory per client"). One forced collection per
// such write is cheap next to the write itself (writes happen at startup
// and on state changes, not per request).
func releaseAfterWrite(allocsBefore uint64) bool {
	allocs, live := heapStats()
	if garbage := allocs - allocsBefore; garbage < bigGarbage || garbage < live {
		return false
	}
	debug.FreeOSMemory()
	return true
}
