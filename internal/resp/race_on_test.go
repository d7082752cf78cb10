//go:build race

package resp

// raceEnabled: under -race, sync.Pool drops a quarter of its Puts at
// random, so allocation counts of pooled paths are not exact.
const raceEnabled = true
