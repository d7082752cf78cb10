package ops

import (
	"net"
	"strconv"
	"strings"
)

// ReplicationInfo is the part of INFO replication the operator commands use.
type ReplicationInfo struct {
	Role     string                    // "master" or "slave"
	Offset   int64                     // master_repl_offset (-1 when absent)
	Replicas map[string]InfoReplicaRow // by ip:port, from slaveN: lines
}

// InfoReplicaRow is one slaveN: line of a master's INFO replication.
type InfoReplicaRow struct {
	State  string
	Offset int64
	Lag    int64
}

// ParseReplicationInfo parses INFO replication text; unknown or malformed
// lines are ignored.
func ParseReplicationInfo(s string) ReplicationInfo {
	ri := ReplicationInfo{Offset: -1, Replicas: map[string]InfoReplicaRow{}}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case k == "role":
			ri.Role = v
		case k == "master_repl_offset":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				ri.Offset = n
			}
		case strings.HasPrefix(k, "slave") && strings.Contains(v, "ip="):
			f := map[string]string{}
			for _, kv := range strings.Split(v, ",") {
				a, b, _ := strings.Cut(kv, "=")
				f[a] = b
			}
			row := InfoReplicaRow{State: f["state"], Offset: -1, Lag: -1}
			if n, err := strconv.ParseInt(f["offset"], 10, 64); err == nil {
				row.Offset = n
			}
			if n, err := strconv.ParseInt(f["lag"], 10, 64); err == nil {
				row.Lag = n
			}
			ri.Replicas[net.JoinHostPort(f["ip"], f["port"])] = row
		}
	}
	return ri
}
