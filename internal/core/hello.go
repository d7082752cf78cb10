package core

import (
	"fmt"
	"strconv"
	"strings"
)

// hello is a parsed hello payload (§11).
type hello struct {
	ip          string
	port        int
	runid       string
	epoch       uint64
	masterName  string
	masterIP    string
	masterPort  int
	configEpoch uint64
}

// parseHello splits a hello payload into its 8 comma-separated fields;
// numbers use C atoi/strtoull semantics like sentinelProcessHelloMessage.
func parseHello(payload string) (hello, bool) {
	// Count before splitting: a peer (or anyone who can PUBLISH on a
	// monitored master) flooding 64 KB hellos of commas made Split build
	// a 65 537-field slice per message, 80 % of the CPU, the core loop
	// stalled for seconds and TILT stopped failure detection (issue 15,
	// bench/cmd/hostilelat peerflood; docs/security.md).
	if strings.Count(payload, ",") != 7 {
		return hello{}, false
	}
	tok := strings.SplitN(payload, ",", 8)
	return hello{
		ip:          tok[0],
		port:        int(atoll(tok[1])),
		runid:       tok[2],
		epoch:       uint64(atoll(tok[3])),
		masterName:  tok[4],
		masterIP:    tok[5],
		masterPort:  int(atoll(tok[6])),
		configEpoch: uint64(atoll(tok[7])),
	}, true
}

// formatHello renders a hello payload.
func formatHello(h hello) string {
	return fmt.Sprintf("%s,%d,%s,%d,%s,%s,%d,%d", h.ip, h.port, h.runid, h.epoch,
		h.masterName, h.masterIP, h.masterPort, h.configEpoch)
}

// processHello is sentinelProcessHelloMessage (plus the own-myid filter of
// sentinelReceiveHelloMessages and sentinelPublishCommand). viaInstance
// says the hello came on the Pub/Sub channel of a monitored instance, not
// in a PUBLISH sent to this sentinel (foreign.go).
func (s *Sentinel) processHello(payload string, viaInstance bool) {
	if strings.Contains(payload, s.myid) {
		return
	}
	h, ok := parseHello(payload)
	if !ok {
		return
	}
	for _, e := range []uint64{h.epoch, h.configEpoch} {
		if why := s.epochRefusal(e); why != "" { // epoch.go
			s.logf(LevelWarning, "Ignored a hello from %s:%d (%s): %s", h.ip, h.port, h.runid, why)
			return
		}
	}
	m, ok := s.masters[h.masterName]
	if !ok {
		return
	}
	si := m.m.sentinels[h.runid]
	if si != nil && !addrEqualsHost(si.addr, h.ip, h.port) {
		si = nil // known runid at another address: an address switch
	}
	if si == nil && viaInstance && !s.helloNamesOurs(m, h) {
		s.foreignHello(m, h) // foreign.go: another deployment's sentinel
		return
	}
	if si == nil {
		removed := s.removeSentinelByRunID(m, h.runid)
		if removed {
			s.eventAt(LevelNotice, "+sentinel-address-switch", m,
				fmt.Sprintf("ip %s port %d for %s", h.ip, h.port, h.runid))
		} else if other := m.sentinelByAddr(h.ip, h.port); other != nil {
			s.eventAt(LevelNotice, "+sentinel-invalid-addr", other, "")
			runid := other.runid
			for _, mm := range s.sortedMasters() {
				s.removeSentinelByRunID(mm, runid)
			}
		}
		if a, ok := s.resolveAddr(h.ip, h.port); ok && h.runid != "" {
			si = s.createSentinel(m, h.runid, a)
			if !removed {
				s.eventAt(LevelNotice, "+sentinel", si, "")
			}
			s.tryConnectionSharing(si)
			if removed {
				s.updateSentinelAddressInAllMasters(si)
			}
			s.markDirty()
		}
	}
	if h.epoch > s.currentEpoch {
		s.currentEpoch = h.epoch
		s.markDirty()
		s.event(LevelWarning, "+new-epoch", m, strconv.FormatUint(s.currentEpoch, 10))
	}
	if si != nil && m.m.configEpoch < h.configEpoch {
		s.adoptConfig(m, si, h)
	}
	if si != nil {
		si.lastHelloTime = s.now
	}
}

// adoptConfig applies a hello whose master config epoch is greater than
// ours: adopt the epoch and, if the address differs, switch to it
// (+config-update-from, +switch-master). A failover of ours with a smaller
// epoch is superseded first, so we never later switch to our own promoted
// replica under the adopted epoch. One with the same epoch goes on, as in
// sentinel.c (docs/core.md decision 28: superseding it was tried and
// reverted).
func (s *Sentinel) adoptConfig(m, si *instance, h hello) {
	shown := s.currentMasterAddr(m)
	if m.flags&fFailoverInProgress != 0 && m.m.failoverEpoch < h.configEpoch {
		s.supersedeFailover(m, h.configEpoch)
	}
	s.setConfigEpoch(m, h.configEpoch) // shown once saved (shown.go)
	if h.masterPort != m.addr.Port || !addrEqualsHost(m.addr, h.masterIP, m.addr.Port) {
		// Our replies show the new address once the adopted epoch is
		// saved (shown.go), so the events that tell clients to switch
		// wait for the same save, and the events of m that follow in
		// this step wait behind them (event.go; docs/core.md decision
		// 34): a client that asked GET-MASTER-ADDR-BY-NAME on
		// +switch-master got the old master back and stayed there
		// (go-redis, fault lab C3).
		s.holdUntilShown(m)
		s.eventAt(LevelWarning, "+config-update-from", si, "")
		s.event(LevelWarning, "+switch-master", m, fmt.Sprintf("%s %s %d %s %d",
			m.name, s.announceHost(m.addr), m.addr.Port, h.masterIP, h.masterPort))
		s.heldUntilSaved(m)
		old := m.addr
		if s.resetMasterAndChangeAddress(m, h.masterIP, h.masterPort) {
			s.clientReconfScript(m, "observer", old, m.addr)
		}
		return
	}
	if !addrEqual(shown, m.addr) {
		// We were showing our promoted replica (RECONF_SLAVES). The
		// configured address never changed, so no +switch-master: the
		// chain of +switch-master events stays consistent (sim S9).
		s.logf(LevelWarning, "%s: reporting %s again instead of our promoted replica %s",
			m.name, hostPort(s.announceHost(m.addr), m.addr.Port), hostPort(s.announceHost(shown), shown.Port))
	}
}

// updateSentinelAddressInAllMasters propagates the new address of a
// sentinel to its objects under every other master
// (sentinelUpdateSentinelAddressInAllMasters).
func (s *Sentinel) updateSentinelAddressInAllMasters(si *instance) {
	n := 0
	for _, m := range s.sortedMasters() {
		match, ok := m.m.sentinels[si.runid]
		if !ok || match == si || addrEqual(match.addr, si.addr) {
			continue
		}
		match.addr = si.addr
		s.closeConn(match.link, false)
		for _, u := range match.link.users {
			u.addr = si.addr
		}
		n++
	}
	if n > 0 {
		s.eventAt(LevelNotice, "+sentinel-address-update", si, fmt.Sprintf("%d additional matching instances", n))
	}
}

// currentMasterAddr is sentinelGetCurrentMasterAddress: the promoted
// replica once the failover reached RECONF_SLAVES.
func (s *Sentinel) currentMasterAddr(m *instance) Addr {
	ms := m.m
	if m.flags&fFailoverInProgress != 0 && ms.promoted != nil && ms.failoverState >= FailoverReconfSlaves {
		return ms.promoted.addr
	}
	return m.addr
}

// sendHello publishes our hello for i's master on i's command connection
// (sentinelSendHello). It reveals the current epoch, so it is held until
// the epoch is persisted.
func (s *Sentinel) sendHello(i *instance) bool {
	m := i.masterOf()
	if i.link.disconnected() || s.holdHello(i) {
		return false
	}
	ip := s.announceIP
	if ip == "" {
		ip = i.link.localIP
		if ip == "" {
			return false
		}
	}
	port := s.announcePort
	if port == 0 {
		port = s.port
	}
	ma := s.currentMasterAddr(m)
	payload := formatHello(hello{
		ip: ip, port: port, runid: s.myid, epoch: s.currentEpoch,
		masterName: m.name, masterIP: s.announceHost(ma), masterPort: ma.Port,
		configEpoch: m.m.configEpoch,
	})
	snd, ok := s.newSend(i, false, SendHello, s.mapCmd(i, "PUBLISH"), HelloChannel, payload)
	if !ok {
		return false
	}
	i.helloPending = true
	s.revealSend(snd)
	return true
}
