package core

import (
	"net/netip"
	"strconv"
	"strings"
)

// parseIP reports whether host is a literal IP address and returns its
// canonical form.
func parseIP(host string) (string, bool) {
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return "", false
	}
	return a.String(), true
}

// announceHost is the address Sentinel shows for a ([Addr.Announced]).
func (s *Sentinel) announceHost(a Addr) string { return a.Announced(s.announceHostnames) }

// hostPort renders host:port, with brackets for IPv6 (announceSentinelAddrAndPort).
func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

// replicaKey is the key of a replica in its master's dictionary and its
// name, fixed at creation (createSentinelRedisInstance uses
// announceSentinelAddrAndPort): the hostname when announce-hostnames is on,
// else the IP. Like sentinel.c, the name does not change when
// announce-hostnames is switched later.
func (s *Sentinel) replicaKey(a Addr) string {
	return hostPort(s.announceHost(a), a.Port)
}

// resolveAddr turns a host given by the network or a client into an Addr,
// or reports false when it is not acceptable (createSentinelAddr): a
// literal IP is always accepted; a hostname only with resolve-hostnames.
func (s *Sentinel) resolveAddr(host string, port int) (Addr, bool) {
	if port < 0 || port > 65535 || host == "" {
		return Addr{}, false
	}
	if ip, ok := parseIP(host); ok {
		return Addr{Host: host, IP: ip, Port: port}, true
	}
	if !s.resolveHostnames {
		return Addr{}, false
	}
	a := Addr{Host: host, Port: port}
	if s.resolveIP != nil {
		if ip, ok := s.resolveIP(host); ok {
			a.IP = ip
		}
	}
	return a, true
}

// newInstance fills the defaults of createSentinelRedisInstance.
func (s *Sentinel) newInstance(f iflag, name string, addr Addr, master *instance) *instance {
	i := &instance{
		flags:            f,
		name:             name,
		addr:             addr,
		master:           master,
		lastPubTime:      s.now,
		lastHelloTime:    s.now,
		lastMDReplyTime:  s.now,
		roleReportedTime: s.now,
		slaveConfChange:  s.now,
		priority:         DefaultReplicaPriority,
		replicaAnnounced: true,
	}
	i.roleReported = f & (fMaster | fSlave)
	if master != nil {
		i.downAfter = master.downAfter
	} else {
		i.downAfter = s.timing.DefaultDownAfter
	}
	i.link = s.newLink(i)
	return i
}

func (s *Sentinel) createMaster(name string, addr Addr, quorum int) *instance {
	m := s.newInstance(fMaster, name, addr, nil)
	m.m = &masterState{
		sentinel:        s,
		quorum:          quorum,
		failoverTimeout: s.timing.DefaultFailoverTimeout,
		parallelSyncs:   DefaultParallelSyncs,
		replicas:        map[string]*instance{},
		sentinels:       map[string]*instance{},
	}
	s.masters[name] = m
	s.dictChanged()
	return m
}

func (s *Sentinel) createReplica(m *instance, addr Addr) *instance {
	key := s.replicaKey(addr)
	r := s.newInstance(fSlave, key, addr, m)
	m.m.replicas[key] = r
	s.dictChanged()
	return r
}

func (s *Sentinel) createSentinel(m *instance, runid string, addr Addr) *instance {
	si := s.newInstance(fSentinel, runid, addr, m)
	si.runid = runid
	m.m.sentinels[runid] = si
	s.dictChanged()
	m.voterFloorReached() // voterfloor.go
	return si
}

// lookupReplica finds a replica of m by address.
func (m *instance) lookupReplica(host string, port int) *instance {
	for _, r := range m.sortedReplicas() {
		if addrEqualsHost(r.addr, host, port) {
			return r
		}
	}
	return nil
}

// releaseInstance forgets an instance: its link reference is dropped and
// late replies to its commands are discarded.
func (s *Sentinel) releaseInstance(i *instance) {
	i.released = true
	s.releaseLink(i)
	if i.isMaster() {
		for _, r := range i.sortedReplicas() {
			s.releaseInstance(r)
		}
		for _, si := range i.sortedSentinels() {
			s.releaseInstance(si)
		}
		i.m.replicas = map[string]*instance{}
		i.m.sentinels = map[string]*instance{}
		s.dictChanged()
	}
}

// removeSentinelByRunID removes the sentinel with runid from m and reports
// whether one was removed (removeMatchingSentinelFromMaster).
func (s *Sentinel) removeSentinelByRunID(m *instance, runid string) bool {
	si, ok := m.m.sentinels[runid]
	if !ok {
		return false
	}
	delete(m.m.sentinels, runid)
	s.dictChanged()
	s.releaseInstance(si)
	return true
}

// sentinelByAddr finds a sentinel of m at host:port (any runid).
func (m *instance) sentinelByAddr(host string, port int) *instance {
	for _, si := range m.sortedSentinels() {
		if addrEqualsHost(si.addr, host, port) {
			return si
		}
	}
	return nil
}
