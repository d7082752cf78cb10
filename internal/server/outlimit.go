package server

import (
	"time"
)

// OutputLimit is one class of Redis' client-output-buffer-limit: a client
// whose unsent output reaches Hard bytes is disconnected at once; one that
// stays at or above Soft bytes for longer than SoftTime is disconnected at
// the next output added after that. Zero Hard or Soft disables that part.
type OutputLimit struct {
	Hard, Soft int64
	SoftTime   time.Duration
}

// OutputLimits holds the limits of the two client classes a sentinel has.
type OutputLimits struct {
	// Normal applies to clients without subscriptions (Redis default
	// "normal 0 0 0": no limit).
	Normal OutputLimit
	// Pubsub applies to clients with at least one channel or pattern
	// subscribed (Redis default "pubsub 32mb 8mb 60").
	Pubsub OutputLimit
}

// DefaultOutputLimits are Redis' client-output-buffer-limit defaults for
// the normal and pubsub classes.
var DefaultOutputLimits = OutputLimits{
	Pubsub: OutputLimit{Hard: 32 << 20, Soft: 8 << 20, SoftTime: 60 * time.Second},
}

// overLimit applies the output limit of the client's class to used bytes,
// like Redis' checkClientOutputBufferLimits; the caller holds c.mu.
func (c *client) overLimit(used int) bool {
	lim := c.s.cfg.OutputLimits.Normal
	if len(c.channels)+len(c.patterns) > 0 {
		lim = c.s.cfg.OutputLimits.Pubsub
	}
	n := int64(used)
	if lim.Hard > 0 && n >= lim.Hard {
		return true
	}
	if lim.Soft > 0 && n >= lim.Soft {
		now := c.s.cfg.now()
		if c.softSince.IsZero() {
			c.softSince = now // first time over the soft limit
			return false
		}
		return now.Sub(c.softSince) > lim.SoftTime
	}
	c.softSince = time.Time{}
	return false
}
