package server

import "time"

// Parking idle connections: see park_linux.go.

// parkDelay is how long a connection waits for input with its goroutine
// before it parks (variables for tests). parkDelayCrowded replaces it
// while more than parkCrowd client goroutines run (Server.readers):
// 4000 connections that arrive at once and each send one PING held one
// goroutine stack each for parkDelay, most of them at the same time.
var (
	parkDelay        = 50 * time.Millisecond
	parkDelayCrowded = time.Millisecond
	parkCrowd        = int64(64)
)

// parkAfter returns the park delay for the next wait.
func (s *Server) parkAfter() time.Duration {
	if s.readers.Load() > parkCrowd {
		return parkDelayCrowded
	}
	return parkDelay
}
