package server

import "time"

// Parking idle connections: see park_linux.go.

// parkDelay is how long a connection waits for input with its goroutine
// before it parks (variables for tests). parkDelayCrowded replaces it
// while more than parkCrowd client goroutines run (Server.readers): 4000
// connections that arrive within a second and each send one PING would
// otherwise hold a goroutine stack each for parkDelay, hundreds of them
// at the same time. 10 ms rather than less keeps a client that sends a
// request every few milliseconds (hostilelat's victim: every 5 ms; a
// benchmark with hundreds of connections) from parking between requests
// while such a crowd arrives: with the half-delay rule in armReadDeadline
// only a gap of more than 5 ms can park it.
var (
	parkDelay        = 50 * time.Millisecond
	parkDelayCrowded = 10 * time.Millisecond
	parkCrowd        = int64(64)
)

// freshCommands is how many commands a connection may have served and
// still count as new for parkDelayCrowded.
const freshCommands = 2

// parkAfter returns the park delay for c's next wait. The crowded delay
// applies only to connections that have served at most freshCommands
// commands: the crowd that arrives, asks once and stays idle parks soon,
// while an established client that asks every few milliseconds
// (hostilelat's victim) keeps parkDelay. A trace of the `idle` load
// (docs/security.md, "Where the victim waits") showed the victim's
// connection parking while 4000 connections arrived (one of its rounds
// stretched past half the crowded delay), and its next request then
// waiting 75–280 ms for the parker, which was resuming thousands of
// crowd connections made readable by their PINGs.
func (s *Server) parkAfter(c *client) time.Duration {
	if c.served <= freshCommands && s.readers.Load() > parkCrowd {
		return parkDelayCrowded
	}
	return parkDelay
}
