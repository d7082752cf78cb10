package runtime

import (
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// coreConfig builds the core's Config from sentinel.conf;
// resolve resolves hostnames (a dnsCache's resolve) when resolve-hostnames is on.
func coreConfig(c *config.Config, timing core.Timing, resolve func(string) (string, bool)) core.Config {
	s := c.Sentinel
	cc := core.Config{
		State: core.State{
			MyID:                s.MyID,
			CurrentEpoch:        s.CurrentEpoch,
			AnnounceIP:          s.AnnounceIP,
			AnnouncePort:        s.AnnouncePort,
			AnnounceHostnames:   s.AnnounceHostnames,
			ResolveHostnames:    s.ResolveHostnames,
			DenyScriptsReconfig: s.DenyScriptsReconfig,
			SentinelUser:        s.SentinelUser,
			SentinelPass:        s.SentinelPass,
			LogLevel:            c.Server.LogLevel,
		},
		Port:        c.Server.Port,
		RequirePass: c.Server.RequirePass,
		Timing:      timing,
		Executable:  executable,
	}
	if c.Server.TLSReplication && c.Server.TLSPort != 0 {
		cc.Port = c.Server.TLSPort
	}
	if s.ResolveHostnames {
		cc.ResolveIP = resolve
	}
	for _, m := range s.Masters {
		mc := core.MasterConfig{
			Name:                        m.Name,
			Addr:                        coreAddr(m.Host, m.Port, s.ResolveHostnames, resolve),
			Quorum:                      m.Quorum,
			DownAfter:                   m.DownAfterMillis,
			FailoverTimeout:             m.FailoverTimeoutMillis,
			ParallelSyncs:               m.ParallelSyncs,
			MasterRebootDownAfterPeriod: m.MasterRebootDownAfterMillis,
			RebootOption:                m.RebootOption,
			NotificationScript:          m.NotificationScript,
			ClientReconfigScript:        m.ClientReconfigScript,
			AuthUser:                    m.AuthUser,
			AuthPass:                    m.AuthPass,
			ConfigEpoch:                 m.ConfigEpoch,
			LeaderEpoch:                 m.LeaderEpoch,
		}
		if m.VoterFloor != 0 {
			mc.VoterFloor, mc.VoterFloorLeft = m.VoterFloor, m.VoterFloorLeft
		}
		for _, r := range m.RenameCommands {
			mc.RenameCommands = append(mc.RenameCommands, core.Rename{From: r.Old, To: r.New})
		}
		for _, r := range m.KnownReplicas {
			mc.KnownReplicas = append(mc.KnownReplicas, coreAddr(r.Host, r.Port, s.ResolveHostnames, resolve))
		}
		for _, p := range m.KnownSentinels {
			mc.KnownSentinels = append(mc.KnownSentinels, core.KnownSentinel{
				Addr: coreAddr(p.Host, p.Port, s.ResolveHostnames, resolve), RunID: p.RunID,
			})
		}
		cc.Masters = append(cc.Masters, mc)
	}
	return cc
}

// coreAddr returns an Addr for host; literal IPs have IP == Host, names
// are resolved when resolve-hostnames is on (and left empty otherwise or
// when resolution fails; the link resolves again at dial time).
func coreAddr(host string, port int, resolveHostnames bool, resolve func(string) (string, bool)) core.Addr {
	a := core.Addr{Host: host, Port: port}
	if ip := net.ParseIP(host); ip != nil {
		a.IP = host
	} else if resolveHostnames && resolve != nil {
		a.IP, _ = resolve(host)
	}
	return a
}

// executable reports access(path, X_OK) like Sentinel's script checks.
func executable(path string) bool {
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return false
	}
	const xOK = 1 // X_OK of access(2)
	return syscall.Access(path, xOK) == nil
}

// applyState copies the core's persisted state into c (a clone of the
// loaded config), keeping c's master order for the masters it already has
// so that a rewrite does not move the user's lines around.
func applyState(c *config.Config, st core.State) {
	s := &c.Sentinel
	s.MyID = st.MyID
	s.CurrentEpoch = st.CurrentEpoch
	s.AnnounceIP = st.AnnounceIP
	s.AnnounceIPSet = st.AnnounceIPSet // `sentinel announce-ip ""` after CONFIG SET to "" (F2)
	s.AnnouncePort = st.AnnouncePort
	s.AnnounceHostnames = st.AnnounceHostnames
	s.ResolveHostnames = st.ResolveHostnames
	s.DenyScriptsReconfig = st.DenyScriptsReconfig
	s.SentinelUser = st.SentinelUser
	s.SentinelPass = st.SentinelPass
	if st.LogLevel != "" {
		c.Server.LogLevel = st.LogLevel // SENTINEL CONFIG SET loglevel (Redis 7.2)
	}

	byName := make(map[string]core.MasterConfig, len(st.Masters))
	for _, m := range st.Masters {
		byName[m.Name] = m
	}
	var out []*config.Master
	seen := make(map[string]bool)
	for _, old := range s.Masters {
		if m, ok := byName[old.Name]; ok {
			out = append(out, configMaster(m, st.AnnounceHostnames))
			seen[old.Name] = true
		}
	}
	for _, m := range st.Masters {
		if !seen[m.Name] {
			out = append(out, configMaster(m, st.AnnounceHostnames))
		}
	}
	s.Masters = out
}

// configMaster converts a master's persisted state. Addresses are written
// like rewriteConfigSentinelOption's announceSentinelAddr: the hostname
// when announce-hostnames is on, else the resolved IP (the name when it
// never resolved).
func configMaster(m core.MasterConfig, announceHostnames bool) *config.Master {
	cm := &config.Master{
		Name:                        m.Name,
		Host:                        m.Addr.Announced(announceHostnames),
		Port:                        m.Addr.Port,
		Quorum:                      m.Quorum,
		DownAfterMillis:             m.DownAfter,
		FailoverTimeoutMillis:       m.FailoverTimeout,
		ParallelSyncs:               m.ParallelSyncs,
		NotificationScript:          m.NotificationScript,
		ClientReconfigScript:        m.ClientReconfigScript,
		AuthUser:                    m.AuthUser,
		AuthPass:                    m.AuthPass,
		MasterRebootDownAfterMillis: m.MasterRebootDownAfterPeriod,
		RebootOption:                m.RebootOption,
		ConfigEpoch:                 m.ConfigEpoch,
		LeaderEpoch:                 m.LeaderEpoch,
	}
	if m.VoterFloor != 0 {
		cm.VoterFloor, cm.VoterFloorLeft = m.VoterFloor, m.VoterFloorLeft
	}
	if cm.DownAfterMillis == 0 {
		cm.DownAfterMillis = config.DefaultDownAfterMillis
	}
	if cm.FailoverTimeoutMillis == 0 {
		cm.FailoverTimeoutMillis = config.DefaultFailoverTimeoutMillis
	}
	if cm.ParallelSyncs == 0 {
		cm.ParallelSyncs = config.DefaultParallelSyncs
	}
	for _, r := range m.RenameCommands {
		cm.RenameCommands = append(cm.RenameCommands, config.Rename{Old: r.From, New: r.To})
	}
	for _, r := range m.KnownReplicas {
		cm.KnownReplicas = append(cm.KnownReplicas, config.Addr{Host: r.Announced(announceHostnames), Port: r.Port})
	}
	for _, p := range m.KnownSentinels {
		cm.KnownSentinels = append(cm.KnownSentinels, config.Peer{Host: p.Addr.Announced(announceHostnames), Port: p.Addr.Port, RunID: p.RunID})
	}
	return cm
}

// respValue converts a core reply into a RESP value.
func respValue(v core.Value) resp.Value {
	switch v.Kind {
	case core.KindStatus:
		return resp.SimpleString(v.Str)
	case core.KindError:
		return resp.Error(v.Str)
	case core.KindInt:
		return resp.Integer(v.Int)
	case core.KindBulk:
		return resp.Bulk(v.Str)
	case core.KindNil:
		return resp.NullBulk()
	case core.KindNilArray:
		return resp.NullArray()
	case core.KindArray, core.KindMap:
		elems := make([]resp.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = respValue(e)
		}
		if v.Kind == core.KindMap {
			return resp.Map(elems...)
		}
		return resp.Array(elems...)
	}
	return resp.Error("ERR internal error: unknown reply kind")
}

// coreValue converts a reply read from an instance into the core's Value.
// RESP3-only kinds never occur (links speak RESP2) but are mapped sanely.
func coreValue(v resp.Value) core.Value {
	switch v.Kind {
	case resp.KindSimpleString:
		return core.Status(v.Str)
	case resp.KindError:
		return core.ErrorValue(v.Str)
	case resp.KindInteger:
		return core.Int(v.Int)
	case resp.KindBoolean:
		if v.Bool {
			return core.Int(1)
		}
		return core.Int(0)
	case resp.KindBulkString, resp.KindVerbatim, resp.KindBigNumber:
		return core.Bulk(v.Str)
	case resp.KindDouble:
		return core.Bulk(strconv.FormatFloat(v.Float, 'g', -1, 64))
	case resp.KindNullBulk, resp.KindNull:
		return core.Nil()
	case resp.KindNullArray:
		return core.NilArray()
	case resp.KindMap:
		elems := make([]core.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = coreValue(e)
		}
		return core.Map(elems...)
	case resp.KindArray, resp.KindSet, resp.KindPush:
		elems := make([]core.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = coreValue(e)
		}
		return core.Array(elems...)
	}
	return core.ErrorValue("ERR unknown reply type")
}
