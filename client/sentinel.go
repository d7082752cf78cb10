package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// masterAnswer is what one sentinel said about the master.
type masterAnswer struct {
	sentinel  string   // sentinel that answered
	addr      string   // advertised master "ip:port"
	epoch     int64    // config-epoch from SENTINEL MASTER, -1 if unavailable
	flags     string   // master flags from SENTINEL MASTER
	promoting bool     // answer is the replica being promoted by this (leader) sentinel
	sentinels []string // other sentinels this one knows (SENTINEL SENTINELS)
}

// replicaInfo is one entry of SENTINEL REPLICAS.
type replicaInfo struct {
	addr   string
	flags  string
	linkOK bool // master-link-status:ok
}

// deadlineFor returns now+d, or ctx's deadline when it is earlier.
func deadlineFor(ctx context.Context, d time.Duration) time.Time {
	dl := time.Now().Add(d)
	if cd, ok := ctx.Deadline(); ok && cd.Before(dl) {
		return cd
	}
	return dl
}

// dialWith dials addr with dialer (or a net.Dialer) under deadline, then
// wraps the connection in TLS when cfg is set. The connection is closed if
// ctx is cancelled while dialling.
func dialWith(ctx context.Context, dialer DialFunc, cfg *tls.Config, addr string, deadline time.Time) (net.Conn, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var c net.Conn
	var err error
	if dialer != nil {
		c, err = dialer(dctx, "tcp", addr)
	} else {
		var d net.Dialer
		c, err = d.DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return c, nil
	}
	tc := cfg.Clone()
	if tc.ServerName == "" {
		if host, _, herr := net.SplitHostPort(addr); herr == nil {
			tc.ServerName = host
		}
	}
	conn := tls.Client(c, tc)
	if err := conn.HandshakeContext(dctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("tls handshake: %w", err)
	}
	return conn, nil
}

// authCmd returns the AUTH command for the given credentials, or nil.
func authCmd(user, pass string) []string {
	switch {
	case pass == "":
		return nil
	case user == "":
		return []string{"AUTH", pass}
	default:
		return []string{"AUTH", user, pass}
	}
}

// peerRefresh is how often one sentinel is asked SENTINEL SENTINELS (the
// list refresh) along with the master query.
const peerRefresh = 10 * time.Second

// wantPeers reports whether the next query to sentinel s should refresh
// the sentinel list, and records that it will.
func (r *resolver) wantPeers(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.meta[s]
	if m == nil {
		m = &sentinelMeta{}
		r.meta[s] = m
	}
	now := time.Now()
	if !m.peersAsked.IsZero() && now.Sub(m.peersAsked) < peerRefresh {
		return false
	}
	m.peersAsked = now
	return true
}

// queryMaster asks one sentinel for the master address, its config epoch
// and the other sentinels, in a single pipelined round trip. It returns
// (nil, nil) when the sentinel does not know the master name.
func (r *resolver) queryMaster(ctx context.Context, addr string) (*masterAnswer, error) {
	name := r.opt.MasterName
	cmds := [][]string{
		{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", name},
		{"SENTINEL", "MASTER", name},
	}
	if r.wantPeers(addr) {
		cmds = append(cmds, []string{"SENTINEL", "SENTINELS", name})
	}
	rs, err := r.sharedDo(ctx, addr, cmds...)
	if err != nil {
		return nil, err
	}
	if notSentinelReply(rs[0]) {
		return nil, notSentinelErr(rs[0])
	}
	if err := rs[0].err(); err != nil {
		if strings.HasPrefix(rs[0].str, "NOAUTH") {
			return nil, fmt.Errorf("get-master-addr-by-name: %w: %w", ErrAuth, err)
		}
		return nil, fmt.Errorf("get-master-addr-by-name: %w", err)
	}
	if rs[0].null || (rs[0].typ == '*' && len(rs[0].arr) == 0) {
		return nil, nil
	}
	if rs[0].typ != '*' || len(rs[0].arr) != 2 {
		return nil, fmt.Errorf("get-master-addr-by-name: %w: want a 2-element array", errProtocol)
	}
	host, port := rs[0].arr[0].str, rs[0].arr[1].str
	if _, perr := strconv.ParseUint(port, 10, 16); perr != nil || host == "" {
		return nil, fmt.Errorf("get-master-addr-by-name: %w: bad address %q %q", errProtocol, host, port)
	}
	a := &masterAnswer{sentinel: addr, addr: net.JoinHostPort(host, port), epoch: -1}
	if rs[1].typ == '*' {
		m := rs[1].fieldMap()
		if e, perr := strconv.ParseInt(m["config-epoch"], 10, 64); perr == nil {
			a.epoch = e
		}
		a.flags = m["flags"]
		if m["ip"] != "" && net.JoinHostPort(m["ip"], m["port"]) != a.addr {
			// The failover leader answers get-master-addr-by-name with the
			// promoted replica (state reconf-slaves) while SENTINEL MASTER
			// still shows the old address and config epoch: its answer
			// belongs to the failover epoch, newer than any config epoch.
			a.epoch++
			a.promoting = true
		}
	}
	if len(rs) > 2 && rs[2].typ == '*' {
		for _, s := range rs[2].arr {
			m := s.fieldMap()
			if m["ip"] != "" && m["port"] != "" {
				a.sentinels = append(a.sentinels, net.JoinHostPort(m["ip"], m["port"]))
			}
		}
	}
	return a, nil
}

// queryReplicas asks one sentinel for the replicas of the master (SENTINEL
// REPLICAS, falling back to the legacy SLAVES). known is false when the
// sentinel does not know the master name.
func (r *resolver) queryReplicas(ctx context.Context, addr string) (reps []replicaInfo, known bool, err error) {
	name := r.opt.MasterName
	rs, err := r.sentinelDo(ctx, addr, []string{"SENTINEL", "REPLICAS", name})
	if err == nil && notSentinelReply(rs[0]) {
		return nil, false, notSentinelErr(rs[0])
	}
	if err == nil && rs[0].typ == '-' && !strings.Contains(strings.ToLower(rs[0].str), "no such master") {
		rs, err = r.sentinelDo(ctx, addr, []string{"SENTINEL", "SLAVES", name})
	}
	if err != nil {
		return nil, false, err
	}
	if e := rs[0].err(); e != nil {
		if strings.Contains(strings.ToLower(e.Error()), "no such master") {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("sentinel replicas: %w", e)
	}
	for _, e := range rs[0].arr {
		m := e.fieldMap()
		if m["ip"] == "" || m["port"] == "" {
			continue
		}
		reps = append(reps, replicaInfo{
			addr:   net.JoinHostPort(m["ip"], m["port"]),
			flags:  m["flags"],
			linkOK: m["master-link-status"] == "ok",
		})
	}
	return reps, true, nil
}

// hasFlag reports whether a comma-separated Sentinel flags field has f.
func hasFlag(flags, f string) bool {
	for _, x := range strings.Split(flags, ",") {
		if x == f {
			return true
		}
	}
	return false
}

// usableReplica reports whether a replica entry may serve reads
// (disconnected ones only with UseDisconnectedReplicas).
func usableReplica(ri replicaInfo, useDisconnected bool) bool {
	return !hasFlag(ri.flags, "s_down") && !hasFlag(ri.flags, "o_down") &&
		(useDisconnected || !hasFlag(ri.flags, "disconnected"))
}
