package workload

import (
	"net"
	"strconv"
	"strings"
)

// parsedEvent is what Check needs from a sentinel event's payload.
type parsedEvent struct {
	kind   string // "master" | "slave" | "sentinel" (instance events)
	addr   string // the instance's "ip:port"
	master string // master name
	// +switch-master
	old, new string
	// +vote-for-leader
	runid string
	epoch int64
}

// parseEvent reads the payloads Sentinel publishes:
//
//	instance events ("%@"): <type> <name> <ip> <port> [@ <master> <ip> <port>] [extra]
//	+switch-master:         <master> <old-ip> <old-port> <new-ip> <new-port>
//	+vote-for-leader:       <runid> <epoch>
//	+new-epoch:             <epoch>
func parseEvent(e Event) parsedEvent {
	f := strings.Fields(e.Payload)
	var p parsedEvent
	p.epoch = -1
	switch e.Channel {
	case "+switch-master":
		if len(f) >= 5 {
			p.master = f[0]
			p.old = net.JoinHostPort(f[1], f[2])
			p.new = net.JoinHostPort(f[3], f[4])
		}
		return p
	case "+vote-for-leader":
		if len(f) >= 2 {
			p.runid = f[0]
			p.epoch, _ = strconv.ParseInt(f[1], 10, 64)
		}
		return p
	case "+new-epoch":
		if len(f) >= 1 {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				p.epoch = n
			}
		}
		return p
	}
	if len(f) < 4 {
		return p
	}
	switch f[0] {
	case "master", "slave", "sentinel":
	default:
		return p
	}
	p.kind = f[0]
	p.addr = net.JoinHostPort(f[2], f[3])
	if f[0] == "master" {
		p.master = f[1]
	}
	if len(f) >= 8 && f[4] == "@" {
		p.master = f[5]
		if p.kind == "master" {
			p.master = f[1]
		}
	}
	return p
}

// masterAddrOf returns the "@ <master> <ip> <port>" part of an instance
// event as an address ("" when absent).
func masterAddrOf(payload string) string {
	f := strings.Fields(payload)
	if len(f) >= 8 && f[4] == "@" {
		return net.JoinHostPort(f[6], f[7])
	}
	return ""
}

func strconvFormat(n int64) string { return strconv.FormatInt(n, 10) }
