package core

import "fmt"

// Epoch bounds (docs/security.md "Epoch poisoning"). Epochs arrive
// unauthenticated: in SENTINEL IS-MASTER-DOWN-BY-ADDR from anyone who
// reaches the client port, and in hello messages from anyone who can
// PUBLISH on a monitored master or on our port. sentinel.c adopts any of
// them, so one request with 9223372036854775807 (or -1, which it casts to
// 2^64-1) sets current-epoch to a value the next failover overflows. The
// core refuses an epoch that is
//
//   - above MaxEpoch (half the int64 range: current+1 and the int64 of a
//     RESP reply can never wrap), which covers every negative number too
//     (they wrap to ≥ 2^63 as uint64, as in sentinel.c), or
//   - more than MaxEpochAhead above our current epoch.
//
// A real peer only gets ahead of us by its own failover attempts, one
// epoch per attempt, at most one attempt per 2 × failover-timeout: with a
// 500 ms failover-timeout that is one per second, so being 1 000 000 ahead
// takes eleven days of continuous failed attempts, and with the default
// 3 minutes over eleven thousand years. Epochs at or below current+bound
// are handled exactly like sentinel.c. An attacker can still raise the
// epoch, but by at most a million per request: reaching MaxEpoch takes
// 4.6 × 10^12 requests.
const (
	MaxEpoch      uint64 = 1 << 62
	MaxEpochAhead uint64 = 1_000_000
)

// epochRefusal returns why e may not be adopted ("" when it may).
func (s *Sentinel) epochRefusal(e uint64) string {
	switch {
	case e > MaxEpoch:
		return fmt.Sprintf("epoch %d is negative or above the maximum %d", int64(e), MaxEpoch)
	case e > s.currentEpoch && e-s.currentEpoch > MaxEpochAhead:
		return fmt.Sprintf("epoch %d is more than %d ahead of the current epoch %d", e, MaxEpochAhead, s.currentEpoch)
	}
	return ""
}
