package config

import (
	"math"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"syscall"
)

// preMonitor lists the sentinel directives applied before any monitor line
// (queueSentinelConfig).
var preMonitor = map[string]bool{
	"announce-ip": true, "announce-port": true, "deny-scripts-reconfig": true,
	"sentinel-user": true, "sentinel-pass": true, "current-epoch": true,
	"myid": true, "resolve-hostnames": true, "announce-hostnames": true,
}

// applySentinel resets the sentinel state and applies every queued
// `sentinel` line in Sentinel's three passes: pre-monitor, monitor, rest.
func (c *Config) applySentinel() error {
	c.Sentinel = Sentinel{DenyScriptsReconfig: true}
	for pass := 0; pass < 3; pass++ {
		for _, e := range c.src {
			sub := strings.ToLower(e.args[0])
			p := 2
			switch {
			case e.floor: // gosentinel.voter-floor: with the per-master lines
			case sub == "monitor":
				p = 1
			case preMonitor[sub]:
				p = 0
			}
			if p != pass {
				continue
			}
			handle := c.handleSentinel
			if e.floor {
				handle = c.handleVoterFloor
			}
			if msg := handle(e.args); msg != "" {
				ce := &ConfigError{File: e.file, Line: e.line, Text: e.text, Msg: msg}
				if msg == msgNoMaster {
					ce.err = ErrNoSuchMaster
				}
				return ce
			}
		}
	}
	return nil
}

// cSign skips the leading white space and optional sign of a C number and
// returns where the digits start and whether the sign was '-'.
func cSign(s string) (start int, neg bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		return i + 1, s[i] == '-'
	}
	return i, false
}

// atoi behaves like C atoi: leading spaces, sign, digits up to the first
// non-digit, 0 when there are none; the result wraps to 32 bits.
func atoi(s string) int {
	i, neg := cSign(s)
	var n int64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if n < math.MaxInt64/10-10 {
			n = n*10 + int64(s[i]-'0')
		} else {
			n = math.MaxInt64
		}
	}
	if neg {
		n = -n
	}
	return int(int32(n))
}

// strtoull behaves like C strtoull(s, NULL, 10).
func strtoull(s string) uint64 {
	i, neg := cSign(s)
	var n uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return math.MaxUint64
		}
		n = n*10 + d
	}
	if neg {
		n = -n
	}
	return n
}

// checkAddr validates a host and port like createSentinelAddr: the port must
// be 0..65535 and, unless resolve-hostnames is on, the host an IP literal.
func (c *Config) checkAddr(host string, port int) string {
	if port < 0 || port > 65535 {
		return msgBadPort
	}
	if c.Sentinel.ResolveHostnames {
		if host == "" {
			return msgResolve
		}
		return ""
	}
	if net.ParseIP(host) == nil {
		return msgResolve
	}
	return ""
}

// addrKey is the identity of a replica address (ip:port, IP canonical).
func addrKey(host string, port int) string {
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	} else {
		host = strings.ToLower(host)
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// executable reports whether path is executable, relative to the sentinel's
// working directory (access(X_OK) after chdir(dir)).
func (c *Config) executable(path string) bool {
	if !filepath.IsAbs(path) && c.Server.AbsDir != "" {
		path = filepath.Join(c.Server.AbsDir, path)
	}
	return syscall.Access(path, 1 /* X_OK */) == nil
}

// handleSentinel applies one sentinel directive (sentinelHandleConfiguration)
// and returns Redis' error message, or "".
func (c *Config) handleSentinel(argv []string) string {
	s := &c.Sentinel
	sub := strings.ToLower(argv[0])
	argc := len(argv)
	var m *Master
	needMaster := func(n int) bool {
		if argc != n {
			return false
		}
		m = c.Master(argv[1])
		return true
	}
	switch {
	case sub == "monitor" && argc == 5:
		quorum := atoi(argv[4])
		if quorum <= 0 {
			return msgQuorum
		}
		port := atoi(argv[3])
		if msg := c.checkAddr(argv[2], port); msg != "" {
			return msg
		}
		if c.Master(argv[1]) != nil {
			return msgDupMaster
		}
		s.Masters = append(s.Masters, &Master{
			Name: argv[1], Host: argv[2], Port: port, Quorum: quorum,
			DownAfterMillis:       DefaultDownAfterMillis,
			FailoverTimeoutMillis: DefaultFailoverTimeoutMillis,
			ParallelSyncs:         DefaultParallelSyncs,
		})
	case sub == "current-epoch" && argc == 2:
		if e := strtoull(argv[1]); e > s.CurrentEpoch {
			s.CurrentEpoch = e
		}
	case sub == "myid" && argc == 2:
		if len(argv[1]) != RunIDSize {
			return msgMyID
		}
		s.MyID = argv[1]
	case sub == "announce-ip" && argc == 2:
		if argv[1] != "" {
			s.AnnounceIP = argv[1]
		}
	case sub == "announce-port" && argc == 2:
		s.AnnouncePort = atoi(argv[1])
	case sub == "deny-scripts-reconfig" && argc == 2:
		v, ok := yesNo(argv[1])
		if !ok {
			return msgDenyYesNo
		}
		s.DenyScriptsReconfig = v
	case sub == "sentinel-user" && argc == 2:
		if argv[1] != "" {
			s.SentinelUser = argv[1]
		}
	case sub == "sentinel-pass" && argc == 2:
		if argv[1] != "" {
			s.SentinelPass = argv[1]
		}
	case sub == "resolve-hostnames" && argc == 2:
		v, ok := yesNo(argv[1])
		if !ok {
			return msgResolveYesNo
		}
		s.ResolveHostnames = v
	case sub == "announce-hostnames" && argc == 2:
		v, ok := yesNo(argv[1])
		if !ok {
			return msgAnnounceYesNo
		}
		s.AnnounceHostnames = v
	case sub == "known-sentinel" && argc == 4:
		// The old form without runid is silently ignored.
	default:
		return c.handleMasterOption(sub, argv, needMaster, &m)
	}
	return ""
}

// handleMasterOption applies the per-master sentinel directives.
func (c *Config) handleMasterOption(sub string, argv []string, needMaster func(int) bool, mp **Master) string {
	n := map[string]int{
		"down-after-milliseconds": 3, "failover-timeout": 3, "parallel-syncs": 3,
		"notification-script": 3, "client-reconfig-script": 3, "auth-pass": 3,
		"auth-user": 3, "config-epoch": 3, "leader-epoch": 3, "known-slave": 4,
		"known-replica": 4, "known-sentinel": 5, "rename-command": 4,
		"master-reboot-down-after-period": 3, "primary-reboot-down-after-period": 3,
	}[sub]
	if n == 0 || !needMaster(n) {
		return msgUnrecognized
	}
	m := *mp
	if m == nil {
		return msgNoMaster
	}
	switch sub {
	case "down-after-milliseconds":
		m.DownAfterMillis = int64(atoi(argv[2]))
		if m.DownAfterMillis <= 0 {
			return msgZeroTime
		}
	case "failover-timeout":
		m.FailoverTimeoutMillis = int64(atoi(argv[2]))
		if m.FailoverTimeoutMillis <= 0 {
			return msgZeroTime
		}
	case "parallel-syncs":
		m.ParallelSyncs = atoi(argv[2])
	case "notification-script":
		if !c.executable(argv[2]) {
			return msgNotifScript
		}
		m.NotificationScript = argv[2]
	case "client-reconfig-script":
		if !c.executable(argv[2]) {
			return msgReconfScript
		}
		m.ClientReconfigScript = argv[2]
	case "auth-pass":
		m.AuthPass = argv[2]
	case "auth-user":
		m.AuthUser = argv[2]
	case "config-epoch":
		m.ConfigEpoch = strtoull(argv[2])
		if m.ConfigEpoch > c.Sentinel.CurrentEpoch {
			c.Sentinel.CurrentEpoch = m.ConfigEpoch
		}
	case "leader-epoch":
		m.LeaderEpoch = strtoull(argv[2])
	case "known-slave", "known-replica":
		port := atoi(argv[3])
		if msg := c.checkAddr(argv[2], port); msg != "" {
			return msg
		}
		k := addrKey(argv[2], port)
		for _, r := range m.KnownReplicas {
			if addrKey(r.Host, r.Port) == k {
				return msgDupReplica
			}
		}
		m.KnownReplicas = append(m.KnownReplicas, Addr{Host: argv[2], Port: port})
	case "known-sentinel":
		port := atoi(argv[3])
		if msg := c.checkAddr(argv[2], port); msg != "" {
			return msg
		}
		for _, p := range m.KnownSentinels {
			if p.RunID == argv[4] {
				return msgDupSentinel
			}
		}
		m.KnownSentinels = append(m.KnownSentinels, Peer{Host: argv[2], Port: port, RunID: argv[4]})
	case "rename-command":
		for _, r := range m.RenameCommands {
			if strings.EqualFold(r.Old, argv[2]) {
				return msgRenameTwice
			}
		}
		m.RenameCommands = append(m.RenameCommands, Rename{Old: argv[2], New: argv[3]})
	case "master-reboot-down-after-period", "primary-reboot-down-after-period":
		m.RebootOption = rebootOptionName(sub)
		m.MasterRebootDownAfterMillis = int64(atoi(argv[2]))
		if m.MasterRebootDownAfterMillis < 0 {
			return msgNegTime
		}
	}
	return ""
}
