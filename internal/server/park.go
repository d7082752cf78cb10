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

// parkAfter returns the park delay for the next wait.
func (s *Server) parkAfter() time.Duration {
	if s.readers.Load() > parkCrowd {
		return parkDelayCrowded
	}
	return parkDelay
}
