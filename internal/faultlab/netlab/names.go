package netlab

import (
	"context"
	"fmt"
)

// ChangeIP gives h a new address in the lab's /24 (the next unused one) and
// keeps its name: the new address is added, the old one removed (sockets
// bound to it stop working, as after a container restart), every hosts file
// is rewritten in place, and the active faults are re-rendered with the new
// address. Processes that bind to a wildcard address keep running.
func (l *Lab) ChangeIP(h *Host) (oldIP, newIP string, err error) {
	if h == nil || h.lab != l {
		return "", "", fmt.Errorf("netlab: ChangeIP: host not in this lab")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", "", ErrClosed
	}
	if l.nextK > 254 {
		return "", "", fmt.Errorf("netlab: out of addresses in 198.18.%d.0/24", l.index)
	}
	oldIP = h.IP()
	newIP = fmt.Sprintf("198.18.%d.%d", l.index, l.nextK)
	l.nextK++
	ctx := context.Background()
	if err := run(ctx, "ip", "-n", h.ns, "addr", "del", oldIP+"/24", "dev", "eth0"); err != nil {
		return "", "", err
	}
	// Old first: deleting a primary address also deletes the secondaries
	// of its subnet, so adding the new one first would lose both.
	if err := run(ctx, "ip", "-n", h.ns, "addr", "add", newIP+"/24", "dev", "eth0"); err != nil {
		return "", "", err
	}
	h.setIP(newIP)
	if err := l.writeHostsLocked(); err != nil {
		return oldIP, newIP, err
	}
	if err := l.applyAllLocked(); err != nil {
		return oldIP, newIP, err
	}
	l.log.Info("netlab: address changed", "host", h.Name, "old", oldIP, "new", newIP)
	return oldIP, newIP, nil
}

// SetResolvable removes (ok=false) or restores (ok=true) h's line in every
// hosts file, in place. With its line gone, h's name does not resolve on
// any host (lookups fail at once: the hosts' resolv.conf points at their
// own loopback). Host.DialContext follows the same table.
func (l *Lab) SetResolvable(h *Host, ok bool) error {
	if h == nil || h.lab != l {
		return fmt.Errorf("netlab: SetResolvable: host not in this lab")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if ok {
		delete(l.unresolved, h.Name)
	} else {
		l.unresolved[h.Name] = true
	}
	if err := l.writeHostsLocked(); err != nil {
		return err
	}
	l.log.Info("netlab: resolvable", "host", h.Name, "ok", ok)
	return nil
}
