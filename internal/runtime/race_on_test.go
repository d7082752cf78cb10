//go:build race

package runtime

// raceEnabled: under the race detector sync.Pool drops items at random
// and the detector allocates on its own, so allocation counts are
// checked without it (make test runs the allocation tests again without
// -race).
const raceEnabled = true
