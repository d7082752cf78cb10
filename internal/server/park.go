package server

import "time"

// Parking idle connections: see park_linux.go.

// parkDelay is how long a connection waits for input with its goroutine
// before it parks (variables for tests). parkDelayCrowded replaces it
// while more than parkCrowd client goroutines run (Server.readers): 4000
// connections that arrive within a second and each send one PING would
// otherwise hold a goroutine stack each for parkDelay, hundreds of them
// at the same time (a 29 vs 40 MiB peak in scripts/client-rss.py's idle
// load). 5 ms rather than less keeps clients with a round trip of a few
// milliseconds (a benchmark with hundreds of connections) from parking
// between requests.
var (
	parkDelay        = 50 * time.Millisecond
	parkDelayCrowded = 5 * time.Millisecond
	parkCrowd        = int64(64)
)

// parkAfter returns the park delay for the next wait.
func (s *Server) parkAfter() time.Duration {
	if s.readers.Load() > parkCrowd {
		return parkDelayCrowded
	}
	return parkDelay
}
