package config

import (
	"net"
	"strconv"
)

// announceHost returns the host as Sentinel writes it: an IP in canonical
// form, a hostname as given.
func announceHost(h string) string {
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return h
}

// rewriteSentinel writes the sentinel options in rewriteConfigSentinelOption
// order.
func rewriteSentinel(st *rewriteState, c *Config) {
	s := &c.Sentinel
	q := QuoteIfNeeded
	if s.MyID != "" {
		st.line("sentinel myid", "sentinel myid "+q(s.MyID), true)
	} else {
		st.processed("sentinel myid")
	}
	st.line("sentinel deny-scripts-reconfig", "sentinel deny-scripts-reconfig "+yesno(s.DenyScriptsReconfig), !s.DenyScriptsReconfig)
	st.line("sentinel resolve-hostnames", "sentinel resolve-hostnames "+yesno(s.ResolveHostnames), s.ResolveHostnames)
	st.line("sentinel announce-hostnames", "sentinel announce-hostnames "+yesno(s.AnnounceHostnames), s.AnnounceHostnames)
	for _, m := range s.Masters {
		name := q(m.Name)
		st.line("sentinel monitor", "sentinel monitor "+name+" "+announceHost(m.Host)+" "+strconv.Itoa(m.Port)+" "+strconv.Itoa(m.Quorum), true)
		perMaster := func(key, val string) {
			st.line("sentinel "+key, "sentinel "+key+" "+name+" "+val, true)
		}
		if m.DownAfterMillis != DefaultDownAfterMillis {
			perMaster("down-after-milliseconds", strconv.FormatInt(m.DownAfterMillis, 10))
		}
		if m.FailoverTimeoutMillis != DefaultFailoverTimeoutMillis {
			perMaster("failover-timeout", strconv.FormatInt(m.FailoverTimeoutMillis, 10))
		}
		if m.ParallelSyncs != DefaultParallelSyncs {
			perMaster("parallel-syncs", strconv.Itoa(m.ParallelSyncs))
		}
		if m.NotificationScript != "" {
			perMaster("notification-script", q(m.NotificationScript))
		}
		if m.ClientReconfigScript != "" {
			perMaster("client-reconfig-script", q(m.ClientReconfigScript))
		}
		if m.AuthPass != "" {
			perMaster("auth-pass", q(m.AuthPass))
		}
		if m.AuthUser != "" {
			perMaster("auth-user", q(m.AuthUser))
		}
		if m.MasterRebootDownAfterMillis != 0 {
			perMaster(rebootOptionKey(m.RebootOption), strconv.FormatInt(m.MasterRebootDownAfterMillis, 10))
		}
		perMaster("config-epoch", strconv.FormatUint(m.ConfigEpoch, 10))
		perMaster("leader-epoch", strconv.FormatUint(m.LeaderEpoch, 10))
		for _, r := range m.KnownReplicas {
			text := "sentinel known-replica " + name + " " + announceHost(r.Host) + " " + strconv.Itoa(r.Port)
			// Deliberate fix: real 7.0.15 never touches legacy known-slave
			// lines and appends the replica again, so the file holds it
			// twice and fails to load. We reuse the earliest unused line of
			// either spelling (keeping file order), then append.
			key := "sentinel known-replica"
			kr, ks := st.optionToLine[key], st.optionToLine["sentinel known-slave"]
			if len(ks) > 0 && (len(kr) == 0 || ks[0] < kr[0]) {
				key = "sentinel known-slave"
			}
			st.line(key, text, true)
		}
		for _, p := range m.KnownSentinels {
			if p.RunID == "" {
				continue
			}
			perMaster("known-sentinel", announceHost(p.Host)+" "+strconv.Itoa(p.Port)+" "+q(p.RunID))
		}
		for _, r := range m.RenameCommands {
			perMaster("rename-command", q(r.Old)+" "+q(r.New))
		}
		if m.VoterFloor != 0 {
			st.line(VoterFloorDirective, voterFloorLine(m), true)
		}
	}
	st.processed(VoterFloorDirective)
	st.line("sentinel current-epoch", "sentinel current-epoch "+strconv.FormatUint(s.CurrentEpoch, 10), true)
	if s.AnnounceIP != "" || s.AnnounceIPSet {
		st.line("sentinel announce-ip", "sentinel announce-ip "+Quote(s.AnnounceIP), true)
	} else {
		st.processed("sentinel announce-ip")
	}
	if s.AnnouncePort != 0 {
		st.line("sentinel announce-port", "sentinel announce-port "+strconv.Itoa(s.AnnouncePort), true)
	} else {
		st.processed("sentinel announce-port")
	}
	if s.SentinelUser != "" {
		st.line("sentinel sentinel-user", "sentinel sentinel-user "+q(s.SentinelUser), true)
	} else {
		st.processed("sentinel sentinel-user")
	}
	if s.SentinelPass != "" {
		st.line("sentinel sentinel-pass", "sentinel sentinel-pass "+q(s.SentinelPass), true)
	} else {
		st.processed("sentinel sentinel-pass")
	}
	for _, k := range []string{"monitor", "down-after-milliseconds", "failover-timeout",
		"parallel-syncs", "notification-script", "client-reconfig-script", "auth-pass",
		"auth-user", "config-epoch", "leader-epoch", "known-replica", "known-slave",
		"known-sentinel", "rename-command", "master-reboot-down-after-period",
		"primary-reboot-down-after-period"} {
		st.processed("sentinel " + k)
	}
}
