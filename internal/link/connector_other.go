//go:build !linux

package link

// connector is empty where links dial through net.Dialer only.
type connector struct{}

// startConnect reports false: the link's goroutine dials.
func (m *Manager) startConnect(*conn) bool { return false }

// close does nothing.
func (cn *connector) close() {}
