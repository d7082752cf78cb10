package core

import (
	"fmt"
	"strings"
)

// infoSection renders the sentinel section of INFO (sentinelInfoCommand).
func (s *Sentinel) infoSection(now Millis) string {
	now += timeBase
	tiltSince := int64(-1)
	if s.tilt {
		tiltSince = (now - s.tiltStart) / 1000
	}
	var b strings.Builder
	tilt := 0
	if s.tilt {
		tilt = 1
	}
	fmt.Fprintf(&b, "sentinel_masters:%d\r\n", len(s.masters))
	fmt.Fprintf(&b, "sentinel_tilt:%d\r\n", tilt)
	fmt.Fprintf(&b, "sentinel_tilt_since_seconds:%d\r\n", tiltSince)
	fmt.Fprintf(&b, "sentinel_total_tilt:%d\r\n", s.newer.totalTilt) // Valkey 9
	fmt.Fprintf(&b, "sentinel_running_scripts:%d\r\n", s.scripts.running)
	fmt.Fprintf(&b, "sentinel_scripts_queue_length:%d\r\n", len(s.scripts.jobs))
	fmt.Fprintf(&b, "sentinel_simulate_failure_flags:%d\r\n", s.simFlags)
	// Ours only (durable.go), named like INFO persistence's
	// rdb_last_bgsave_status: err while the config cannot be saved, when
	// the sentinel grants no vote and starts no failover.
	saveStatus := "ok"
	if !s.durable() {
		saveStatus = "err"
	}
	fmt.Fprintf(&b, "sentinel_config_save_status:%s\r\n", saveStatus)
	for k, m := range s.sortedMasters() {
		status := "ok"
		if m.flags&fODown != 0 {
			status = "odown"
		} else if m.flags&fSDown != 0 {
			status = "sdown"
		}
		_, addr, _ := s.shownMaster(m) // as on disk (shown.go)
		fmt.Fprintf(&b, "master%d:name=%s,status=%s,address=%s,slaves=%d,sentinels=%d\r\n",
			k, m.name, status, hostPort(s.announceHost(addr), addr.Port), len(m.m.replicas), len(m.m.sentinels)+1)
	}
	return b.String()
}
