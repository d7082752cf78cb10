//go:build !linux

package server

// Parking idle connections (park_linux.go) needs epoll; elsewhere every
// connection keeps its goroutine.

// parkSupported: connections cannot park on this system.
const parkSupported = false

// parker holds nothing where connections cannot park.
type parker struct{}

// park never parks.
func (s *Server) park(*client) bool { return false }

// unpark has nothing to resume.
func (s *Server) unpark(*client) {}

// inputPending: never asked where connections cannot park.
func (c *client) inputPending() bool { return false }
