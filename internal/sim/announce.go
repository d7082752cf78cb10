package sim

import (
	"fmt"

	"github.com/gosentinel/gosentinel/internal/core"
)

// The sentinels' own announce-ip / announce-port (Options.SentinelAnnounce):
// every sentinel sits behind a port-mapping NAT, as in Docker (the Redis
// docs' "Sentinel, Docker, NAT, and possible issues"). It listens on
// 10.0.1.N:26379, an address no other node can reach, and is reached at
// 10.0.9.N:3000N, which it is configured to announce (`sentinel
// announce-ip`, `sentinel announce-port`); the operator writes the
// announced addresses in the known-sentinel lines too. Its sockets'
// local address is still the inner one, so a hello built from the
// socket (no announce-ip) or from the listening port (no announce-port)
// names an address its peers cannot reach.

// sentinelPublicAddr is the announced address of sentinel j.
func sentinelPublicAddr(j int) core.Addr {
	ip := fmt.Sprintf("10.0.9.%d", j+1)
	return core.Addr{Host: ip, IP: ip, Port: 30000 + j + 1}
}

// unannounced reports whether a, given as a peer sentinel's address,
// is not the address any sentinel announces (its inner address, or the
// inner IP with the announced port, or anything else) when the sentinels
// are behind a NAT; who names the inner address of which sentinel, if
// any.
func (w *World) unannounced(a core.Addr) (bool, string) {
	if !w.opt.SentinelAnnounce {
		return false, ""
	}
	ip := a.IP
	if ip == "" {
		ip = a.Host
	}
	for _, s := range w.sent {
		if s.pub.IP == ip && s.pub.Port == a.Port {
			return false, ""
		}
	}
	for _, s := range w.sent {
		if s.addr.IP == ip {
			return true, fmt.Sprintf(" (the inner IP of sentinel %d, which announces %s)", s.id, fmtAddr(s.pub))
		}
	}
	return true, ""
}

// announcedDial is N1 for a dial (reference, fault-lab spec E4:
// "discovery via announced addresses only; no connection attempts to
// non-announced addresses"): a sentinel dials its peers only at
// addresses they announce.
func (w *World) announcedDial(s *sentinel, e core.Connect) {
	if e.Role != core.RoleSentinel {
		return
	}
	if bad, who := w.unannounced(e.Addr); bad {
		w.violate("N1", s, "dialed a peer sentinel at %s, an address no sentinel announces%s", fmtAddr(e.Addr), who)
	}
}

// announcedPeers is N1 for a master's view: every known sentinel is at
// an address a sentinel announces.
func (w *World) announcedPeers(s *sentinel, name string, v core.MasterView) {
	for _, si := range v.Sentinels {
		if bad, who := w.unannounced(si.Addr); bad {
			w.violate("N1", s, "knows sentinel %s of %s at %s, an address no sentinel announces%s", short(si.RunID), name, fmtAddr(si.Addr), who)
		}
	}
}
