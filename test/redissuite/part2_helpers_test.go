package redissuite

import (
	"fmt"
	"testing"
	"time"
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

// bgsave is `R id bgsave`, retried while the server answers "Background
// save already in progress": a diskless full sync to a replica that just
// reconnected runs an RDB child too (BGSAVE SCHEDULE only waits for an
// AOF rewrite).
func (s *suite) bgsave(id int) {
	s.t.Helper()
	s.waitFor(30*time.Second, fmt.Sprintf("redis %d accepts BGSAVE", id), func() bool {
		_, err := do(s.redis[id], "BGSAVE")
		return err == nil
	})
}
