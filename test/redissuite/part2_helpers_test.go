package redissuite

import (
	"testing"
)

// newBareSuite starts n sentinels and no redis-server, without
// init-tests: for the units that only talk to a sentinel (13-info-command).
func newBareSuite(t *testing.T, n int) *suite {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real processes")
	}
	s := &suite{t: t, quorum: n/2 + 1}
	cwd := t.TempDir()
	t.Cleanup(func() {
		for _, in := range s.sentinels {
			in.closeClient()
		}
	})
	for i := 0; i < n; i++ {
		s.sentinels = append(s.sentinels, s.spawnSentinel(cwd, i))
	}
	return s
}
