package config

import (
	"strconv"
	"strings"
)

// rewriteServer writes the ordinary options (config table, then users).
func rewriteServer(st *rewriteState, s *Server) {
	str := func(key, v string, def *string) {
		if v == "" && def == nil {
			st.processed(key)
			return
		}
		st.line(key, key+" "+Quote(v), def == nil || v != *def)
	}
	num := func(key string, v, def int) {
		st.line(key, key+" "+strconv.Itoa(v), v != def)
	}
	boolean := func(key string, v, def bool) {
		st.line(key, key+" "+yesno(v), v != def)
	}
	empty := ""
	num("port", s.Port, 6379)
	if strings.Join(s.Bind, " ") == strings.Join(DefaultBind, " ") {
		st.processed("bind") // Redis drops a bind line equal to the default
	} else {
		parts := []string{"bind"}
		for _, a := range s.Bind {
			parts = append(parts, QuoteIfNeeded(a)) // `bind ""` stays loadable
		}
		st.line("bind", strings.Join(parts, " "), true)
	}
	if s.AbsDir != "" {
		st.line("dir", "dir "+Quote(s.AbsDir), true)
	}
	str("logfile", s.LogFile, &empty)
	st.line("loglevel", "loglevel "+s.LogLevel, s.LogLevel != "notice")
	boolean("daemonize", s.Daemonize, false)
	str("pidfile", s.PidFile, nil)
	str("requirepass", s.RequirePass, nil)
	str("aclfile", s.ACLFile, &empty)
	num("acllog-max-len", s.ACLLogMaxLen, DefaultACLLogMaxLen)
	num("maxclients", s.MaxClients, DefaultMaxClients)
	num("timeout", s.Timeout, 0)
	num("tcp-keepalive", s.TCPKeepalive, DefaultTCPKeepalive)
	boolean("protected-mode", s.ProtectedMode, true)
	num("hz", s.HZ, DefaultHZ)
	str("bind-source-addr", s.BindSourceAddr, nil)
	num("tls-port", s.TLSPort, 0)
	str("tls-cert-file", s.TLSCertFile, nil)
	str("tls-key-file", s.TLSKeyFile, nil)
	str("tls-ca-cert-file", s.TLSCACertFile, nil)
	boolean("tls-replication", s.TLSReplication, false)
	st.line("tls-auth-clients", "tls-auth-clients "+s.TLSAuthClients, s.TLSAuthClients != "yes")
	st.line("latency-tracking-info-percentiles", percentilesLine(s.LatencyPercents), true)
	for i, l := range s.outputLimits {
		text := "client-output-buffer-limit " + outputLimitClasses[i] + " " + formatMemory(l[0]) + " " +
			formatMemory(l[1]) + " " + strconv.FormatUint(l[2], 10)
		st.line("client-output-buffer-limit", text, l != defaultOutputLimits[i])
	}
	// Sentinel never rewrites save lines and loads no module: those lines
	// are dropped.
	st.processed("save")
	st.processed("loadmodule")
	for _, d := range s.Other {
		if d.Name == "loadmodule" || d.Name == "save" {
			continue
		}
		if nullStrings[d.Name] && len(d.Args) == 1 && d.Args[0] == "" {
			st.processed(d.Name) // NULL string: Redis drops the line
			continue
		}
		line := otherLine(d)
		def, known := standardDefaults()[d.Name]
		st.line(d.Name, line, known && line != def)
	}
	if s.ACLFile != "" {
		st.processed("user")
	} else {
		for _, l := range userLines(s) {
			st.line("user", l, true)
		}
		st.processed("user")
	}
}

// nullStrings are string options whose default is NULL: an empty value is
// not written back (found by rewriting a full CONFIG GET dump with 7.0.15).
var nullStrings = map[string]bool{
	"replica-announce-ip": true, "masteruser": true, "masterauth": true, "tls-dh-params-file": true,
	"cluster-announce-hostname": true, "cluster-announce-ip": true, "tls-client-key-file-pass": true,
	"tls-key-file-pass": true, "bio_cpulist": true, "server_cpulist": true, "bgsave_cpulist": true,
	"aof_rewrite_cpulist": true, "tls-ca-cert-dir": true, "tls-client-cert-file": true,
	"tls-client-key-file": true, "tls-ciphersuites": true, "tls-ciphers": true, "tls-protocols": true,
	"unixsocket": true,
}

// otherLine formats a kept directive as Redis writes it back.
func otherLine(d Directive) string {
	sp, _ := lookupStandard(d.Name)
	parts := []string{d.Name}
	for _, a := range d.Args {
		if sp.kind == kMem {
			if n, ok := memToBytes(a); ok {
				a = formatMemory(n)
			}
		}
		if sp.kind == kString {
			parts = append(parts, Quote(a))
		} else {
			parts = append(parts, QuoteIfNeeded(a))
		}
	}
	return strings.Join(parts, " ")
}

// formatMemory writes bytes with the largest exact unit, like
// rewriteConfigFormatMemory (1073741824 → "1gb", 1000 → "1000").
func formatMemory(n uint64) string {
	for _, u := range []struct {
		suf string
		div uint64
	}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}} {
		if n != 0 && n%u.div == 0 {
			return strconv.FormatUint(n/u.div, 10) + u.suf
		}
	}
	return strconv.FormatUint(n, 10)
}

func yesno(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// percentilesLine formats latency-tracking-info-percentiles ("%f", trimmed).
func percentilesLine(ps []float64) string {
	if len(ps) == 0 {
		return `latency-tracking-info-percentiles ""`
	}
	var b strings.Builder
	b.WriteString("latency-tracking-info-percentiles")
	for _, p := range ps {
		f := strconv.FormatFloat(p, 'f', 6, 64)
		f = strings.TrimRight(f, "0")
		f = strings.TrimSuffix(f, ".")
		b.WriteString(" " + f)
	}
	return b.String()
}
