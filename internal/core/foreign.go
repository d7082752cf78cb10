package core

import "strings"

// Hellos of another deployment (docs/core.md decision 35).
//
// sentinel.c matches a hello to a master by name only, and hellos are not
// authenticated: when two deployments monitor masters of the same name
// and hellos leak from one into the other — a tool that copies Pub/Sub
// traffic between clusters (RedisShake#255), a node address reused by the
// other deployment (helm/charts#19895) — each sentinel adds the other
// deployment's sentinels as its own. Sentinels also send hellos to their
// peers, so the merge spreads both ways within one hello period: every
// sentinel then counts twice the voters, neither deployment can elect a
// leader when its master fails (fault lab E5: 0 failovers, an epoch
// burned every 2 × failover-timeout, on redis-sentinel and gosentinel
// alike before this rule), and a config epoch of one deployment switches
// the other's sentinels to a master of the wrong deployment.
//
// The rule: a hello that arrives on the Pub/Sub channel of a monitored
// instance from a sentinel not known under the master (new run ID, or a
// known one at a new address) is taken only when the master address it
// announces is one this sentinel can place in its own deployment — the
// master's address, one of its known replicas, or the master that the
// monitored master reports replicating from (a sentinel that missed a
// failover learns it from the demoted master's side). Any other is not
// this deployment's master: the hello is dropped (no +sentinel, no epoch
// taken, no config adopted) and logged at most once a minute per master.
// Hellos from sentinels already known are handled as sentinel.c does, so
// a peer that announces a failover this sentinel has not seen (a replica
// it has not discovered yet) is still followed; and so are hellos a peer
// PUBLISHes to this sentinel directly: a peer only sends those once it
// has taken this sentinel as its own, and a sentinel that forgot its
// peers and replicas (SENTINEL RESET) while its master is down learns
// the failover only that way (simulator seed 1615703). Leaked hellos
// arrive through instances; once none is taken, no sentinel of the other
// deployment learns this one, and nothing comes back directly.

// foreignHelloLogEvery is the least time between two log lines about
// foreign hellos of one master.
const foreignHelloLogEvery Millis = 60_000

// helloNamesOurs reports whether the master address announced by h is the
// address of m, of one of its known replicas, or of the master m reports
// replicating from.
func (s *Sentinel) helloNamesOurs(m *instance, h hello) bool {
	same := func(a Addr) bool {
		if addrEqualsHost(a, h.masterIP, h.masterPort) {
			return true
		}
		if b, ok := s.resolveAddr(h.masterIP, h.masterPort); ok {
			return addrEqual(a, b)
		}
		return false
	}
	if same(m.addr) {
		return true
	}
	for _, r := range m.m.replicas {
		if same(r.addr) {
			return true
		}
	}
	return m.roleReported == fSlave && m.slaveMasterHost != "" && m.slaveMasterPort == h.masterPort &&
		strings.EqualFold(m.slaveMasterHost, h.masterIP)
}

// foreignHello counts a dropped hello of another deployment and logs it
// (rate-limited).
func (s *Sentinel) foreignHello(m *instance, h hello) {
	ms := m.m
	ms.foreignHellos++
	if ms.foreignHelloLogged != 0 && s.now-ms.foreignHelloLogged < foreignHelloLogEvery {
		return
	}
	ms.foreignHelloLogged = s.now
	s.logf(LevelWarning, "Ignored a hello for master %s from sentinel %s at %s: it announces %s, "+
		"which is neither the master nor a replica this sentinel knows; another deployment using the same "+
		"master name? (docs/core.md decision 35)", m.name, h.runid, hostPort(h.ip, h.port), hostPort(h.masterIP, h.masterPort))
}
