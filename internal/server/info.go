package server

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// infoSections is the order sections appear in (genRedisInfoString order,
// then Sentinel's own section).
var infoSections = []string{"server", "clients", "stats", "cpu", "sentinel"}

// cmdInfo: INFO [section ...]. "default", "all" and "everything" select all
// five sections; unknown names are ignored; the reply is always a bulk
// string (also in RESP3), every section followed by a blank line.
func cmdInfo(c *client, _ *command, args [][]byte) {
	want := map[string]bool{}
	if len(args) == 1 {
		for _, s := range infoSections {
			want[s] = true
		}
	}
	for _, a := range args[1:] {
		switch name := strings.ToLower(string(a)); name {
		case "default", "all", "everything":
			for _, s := range infoSections {
				want[s] = true
			}
		default:
			want[name] = true
		}
	}
	var b strings.Builder
	n := 0
	for _, sec := range infoSections {
		if !want[sec] {
			continue
		}
		// Like genRedisInfoString: a blank line between sections, none
		// after the last.
		if n > 0 {
			b.WriteString("\r\n")
		}
		n++
		switch sec {
		case "server":
			c.s.infoServer(&b)
		case "clients":
			c.s.infoClients(&b)
		case "stats":
			c.s.infoStats(&b)
		case "cpu":
			infoCPU(&b)
		case "sentinel":
			b.WriteString("# Sentinel\r\n")
			b.WriteString(c.s.backend.InfoSentinel())
		}
	}
	c.addReply(appendBulkString(nil, b.String()))
}

func appendBulkString(dst []byte, s string) []byte {
	dst = fmt.Appendf(dst, "$%d\r\n", len(s))
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

func field(b *strings.Builder, k string, v any) {
	fmt.Fprintf(b, "%s:%v\r\n", k, v)
}

func (s *Server) infoServer(b *strings.Builder) {
	now := time.Now()
	up := now.Sub(s.start)
	osName := osDescription()
	port := 0
	for _, a := range s.Addrs() {
		if p := addrPort(a.String()); p != 0 {
			port = p
			break
		}
	}
	exe := s.cfg.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	b.WriteString("# Server\r\n")
	field(b, "redis_version", Version)
	field(b, "redis_git_sha1", "00000000")
	field(b, "redis_git_dirty", 0)
	field(b, "redis_build_id", "0")
	field(b, "redis_mode", "sentinel")
	field(b, "os", osName)
	field(b, "arch_bits", 32<<(^uint(0)>>63))
	field(b, "monotonic_clock", "POSIX clock_gettime")
	field(b, "multiplexing_api", "epoll")
	field(b, "atomicvar_api", "c11-builtin")
	field(b, "gcc_version", "0.0.0")
	field(b, "process_id", os.Getpid())
	supervised := s.cfg.Supervised
	if supervised == "" {
		supervised = "no"
	}
	field(b, "process_supervised", supervised)
	field(b, "run_id", s.runID)
	field(b, "tcp_port", port)
	field(b, "server_time_usec", now.UnixMicro())
	field(b, "uptime_in_seconds", int64(up/time.Second))
	field(b, "uptime_in_days", int64(up/(24*time.Hour)))
	field(b, "hz", 10)
	field(b, "configured_hz", 10)
	field(b, "lru_clock", (now.Unix())&((1<<24)-1))
	field(b, "executable", exe)
	field(b, "config_file", s.cfg.ConfigFile)
	field(b, "io_threads_active", 0)
}

// osDescription approximates uname's "sysname release machine".
func osDescription() string {
	sys, err1 := os.ReadFile("/proc/sys/kernel/ostype")
	rel, err2 := os.ReadFile("/proc/sys/kernel/osrelease")
	if err1 != nil || err2 != nil {
		return runtime.GOOS + " " + runtime.GOARCH
	}
	machine := runtime.GOARCH
	switch machine {
	case "amd64":
		machine = "x86_64"
	case "arm64":
		machine = "aarch64"
	}
	return strings.TrimSpace(string(sys)) + " " + strings.TrimSpace(string(rel)) + " " + machine
}

func addrPort(a string) int {
	i := strings.LastIndexByte(a, ':')
	if i < 0 {
		return 0
	}
	n, _ := parseInt(a[i+1:])
	return int(n)
}

func (s *Server) infoClients(b *strings.Builder) {
	b.WriteString("# Clients\r\n")
	field(b, "connected_clients", s.numClients())
	field(b, "cluster_connections", 0)
	field(b, "maxclients", s.cfg.MaxClients)
	field(b, "client_recent_max_input_buffer", 0)
	field(b, "client_recent_max_output_buffer", 0)
	field(b, "blocked_clients", 0)
	field(b, "tracking_clients", 0)
	field(b, "clients_in_timeout_table", 0)
}

func (s *Server) infoStats(b *strings.Builder) {
	chans, pats := s.ps.counts()
	st := &s.stats
	b.WriteString("# Stats\r\n")
	field(b, "total_connections_received", st.connections.Load())
	field(b, "total_commands_processed", st.commands.Load())
	field(b, "instantaneous_ops_per_sec", 0)
	field(b, "total_net_input_bytes", st.netIn.Load())
	field(b, "total_net_output_bytes", st.netOut.Load())
	field(b, "total_net_repl_input_bytes", 0)
	field(b, "total_net_repl_output_bytes", 0)
	for _, k := range []string{"instantaneous_input_kbps", "instantaneous_output_kbps", "instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps"} {
		field(b, k, "0.00")
	}
	field(b, "rejected_connections", st.rejected.Load())
	zeros := []string{"sync_full", "sync_partial_ok", "sync_partial_err", "expired_keys"}
	for _, k := range zeros {
		field(b, k, 0)
	}
	field(b, "expired_stale_perc", "0.00")
	for _, k := range []string{"expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds", "evicted_keys",
		"evicted_clients", "total_eviction_exceeded_time", "current_eviction_exceeded_time", "keyspace_hits", "keyspace_misses"} {
		field(b, k, 0)
	}
	field(b, "pubsub_channels", chans)
	field(b, "pubsub_patterns", pats)
	for _, k := range []string{"pubsubshard_channels", "latest_fork_usec", "total_forks", "migrate_cached_sockets",
		"slave_expires_tracked_keys", "active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits",
		"active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time", "tracking_total_keys",
		"tracking_total_items", "tracking_total_prefixes", "unexpected_error_replies"} {
		field(b, k, 0)
	}
	field(b, "total_error_replies", st.errorReplies.Load())
	for _, k := range []string{"dump_payload_sanitizations", "total_reads_processed", "total_writes_processed",
		"io_threaded_reads_processed", "io_threaded_writes_processed", "reply_buffer_shrinks", "reply_buffer_expands"} {
		field(b, k, 0)
	}
}

func infoCPU(b *strings.Builder) {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	sec := func(t syscall.Timeval) string {
		return fmt.Sprintf("%d.%06d", t.Sec, t.Usec)
	}
	b.WriteString("# CPU\r\n")
	field(b, "used_cpu_sys", sec(self.Stime))
	field(b, "used_cpu_user", sec(self.Utime))
	field(b, "used_cpu_sys_children", sec(children.Stime))
	field(b, "used_cpu_user_children", sec(children.Utime))
	field(b, "used_cpu_sys_main_thread", sec(self.Stime))
	field(b, "used_cpu_user_main_thread", sec(self.Utime))
}
