package faultlab

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// The sentinels' ACL user on redis in F2 and F3; clients and replication
// use the default user with requirepass.
const sentinelACLUser = "sentinel-user"

var f2Auth = AuthSetup{RedisPass: "f2-client-secret", SentinelUser: sentinelACLUser, SentinelUserPass: "f2-old-secret"}

// f2NewPass is the password F2 rotates to.
const f2NewPass = "f2-new-secret"

// f3MinimalACL is the sentinel user's ACL from the Redis Sentinel docs
// ("Redis Access Control List authentication"); Valkey 9 also needs
// +failover, which Redis 7.0 does not have.
const f3MinimalACL = "allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill"

var f3Auth = AuthSetup{RedisPass: "f3-client-secret", SentinelUser: sentinelACLUser, SentinelUserPass: "f3-sentinel-secret", SentinelACL: f3MinimalACL}

// clientInfo is one line of CLIENT LIST.
type clientInfo struct {
	id   int64
	user string
	name string
}

// clientList is CLIENT LIST on the redis of host h.
func clientList(ctx context.Context, t *Topology, h string) ([]clientInfo, error) {
	v, err := t.RedisDo(ctx, h, "CLIENT", "LIST")
	if err != nil {
		return nil, err
	}
	s, _ := v.(string)
	var out []clientInfo
	for _, line := range strings.Split(s, "\n") {
		var ci clientInfo
		for _, f := range strings.Fields(line) {
			k, val, _ := strings.Cut(f, "=")
			switch k {
			case "id":
				ci.id, _ = strconv.ParseInt(val, 10, 64)
			case "user":
				ci.user = val
			case "name":
				ci.name = val
			}
		}
		if ci.id > 0 {
			out = append(out, ci)
		}
	}
	return out, nil
}

// sentinelLinks counts the connections of the sentinels' user on the redis
// of host h: older (id ≤ since) and newer.
func sentinelLinks(ctx context.Context, t *Topology, h string, since int64) (old, fresh int, maxID int64, err error) {
	l, err := clientList(ctx, t, h)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, c := range l {
		maxID = max(maxID, c.id)
		if c.user != sentinelACLUser {
			continue
		}
		if c.id <= since {
			old++
		} else {
			fresh++
		}
	}
	return old, fresh, maxID, nil
}

// liveRedis lists the redis hosts whose process runs.
func liveRedis(t *Topology) []string {
	var out []string
	for _, h := range t.RedisHosts {
		if t.live("redis-" + h) {
			out = append(out, h)
		}
	}
	return out
}

// f2Rotate rotates the sentinels' password: the new one is added on every
// redis node, SENTINEL SET mym auth-pass on every sentinel, then the old
// one is removed. It measures how long until every sentinel link on every
// redis node is a new connection (authenticated with the new password)
// and how many old links are left 2 s after the last SENTINEL SET.
func f2Rotate(ctx context.Context, e *Env) error {
	t := e.Top
	nodes := liveRedis(t)
	before := map[string]int{}
	since := map[string]int64{}
	for _, h := range nodes {
		old, _, maxID, err := sentinelLinks(ctx, t, h, 1<<62)
		if err != nil {
			return fmt.Errorf("client list on %s: %w", h, err)
		}
		before[h], since[h] = old, maxID
		if _, err := t.RedisDo(ctx, h, "ACL", "SETUSER", sentinelACLUser, ">"+f2NewPass); err != nil {
			return fmt.Errorf("add the new password on %s: %w", h, err)
		}
	}
	e.Note("sentinel links per node before the rotation: %v", before)
	for _, h := range t.SentinelHosts {
		if _, err := t.SentinelDo(ctx, h, "SENTINEL", "SET", MasterName, "auth-pass", f2NewPass); err != nil {
			return fmt.Errorf("SENTINEL SET auth-pass on %s: %w", h, err)
		}
	}
	setAt := time.Now()
	for _, h := range nodes {
		if _, err := t.RedisDo(ctx, h, "ACL", "SETUSER", sentinelACLUser, "<"+f2PassOld()); err != nil {
			return fmt.Errorf("remove the old password on %s: %w", h, err)
		}
	}
	reconnect := -1.0
	staleAt2 := -1
	for time.Since(setAt) < 5*time.Second {
		stale, missing := 0, 0
		for _, h := range nodes {
			old, fresh, _, err := sentinelLinks(ctx, t, h, since[h])
			if err != nil {
				return fmt.Errorf("client list on %s: %w", h, err)
			}
			stale += old
			if fresh < before[h] {
				missing += before[h] - fresh
			}
		}
		el := time.Since(setAt)
		if stale == 0 && missing == 0 && reconnect < 0 {
			reconnect = secs(el)
		}
		if el >= 2*time.Second && staleAt2 < 0 {
			staleAt2 = stale
			if stale > 0 {
				e.Note("%d sentinel links from before SENTINEL SET auth-pass still open 2 s after it", stale)
			}
		}
		if reconnect >= 0 && staleAt2 >= 0 {
			break
		}
		if err := e.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	e.Set("reconnect_s", reconnect)
	e.Set("stale_links_2s", float64(staleAt2))
	return nil
}

func f2PassOld() string { return f2Auth.SentinelUserPass }

// aclDenials sums the ACL LOG entries of the sentinels' user on the redis
// of host h and notes them.
func aclDenials(ctx context.Context, t *Topology, h string, notes *[]string) (int, error) {
	v, err := t.RedisDo(ctx, h, "ACL", "LOG")
	if err != nil {
		return 0, err
	}
	l, _ := v.([]any)
	n := 0
	for _, ent := range l {
		m := flat(ent)
		if m["username"] != sentinelACLUser {
			continue
		}
		c, _ := strconv.Atoi(m["count"])
		n += c
		*notes = append(*notes, fmt.Sprintf("ACL LOG on %s: %s denied %s (%s) ×%d", h, m["username"], m["object"], m["reason"], c))
	}
	return n, nil
}

// nopermSurfaced reports whether a sentinel made a -NOPERM visible: an
// event mentioning it, or a line in a sentinel's log.
func nopermSurfaced(in *workload.Input, top *Topology) bool {
	for _, ev := range in.Events {
		if strings.Contains(strings.ToLower(ev.Channel+" "+ev.Payload), "noperm") {
			return true
		}
	}
	for _, h := range top.SentinelHosts {
		if logMentions(top, "sentinel-"+h, "noperm") {
			return true
		}
	}
	return false
}

func init() {
	register(&Scenario{
		ID: "F2", Title: "auth-pass rotation", ExpectFailover: true,
		Setup:    Setup{Auth: f2Auth},
		Fault:    "sentinels log in to redis as an ACL user (auth-user/auth-pass); add a new password on every redis node, SENTINEL SET mym auth-pass <new> on every sentinel, remove the old password; then SIGKILL the master",
		Expected: "links reconnect ≤ 2 s with the new password, no stale link (redis#10400), no secret in any log (redis#9652); failover works with the new password",
		Schedule: func(ctx context.Context, e *Env) error {
			if err := f2Rotate(ctx, e); err != nil {
				return err
			}
			if err := e.Sleep(ctx, time.Second); err != nil {
				return err
			}
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			secrets := append(f2Auth.Secrets(), f2NewPass)
			r.Extra["secrets_in_logs"] = float64(secretsInLogs(top, secrets, r))
			n := 0
			for _, ev := range in.Events {
				for _, s := range secrets {
					if strings.Contains(ev.Payload, s) {
						n++
						r.Notes = append(r.Notes, fmt.Sprintf("secret in event %s %s: %s", ev.Sentinel, ev.Channel, ev.Payload))
					}
				}
			}
			r.Extra["secrets_in_events"] = float64(n)
		},
		Criteria: []Criterion{
			{Name: "links reconnect <= 2 s", Check: func(r *RunResult) (bool, string) {
				v, ok := r.Extra["reconnect_s"]
				return ok && v >= 0 && v <= 2, fmt.Sprintf("reconnect_s = %g", v)
			}},
			extraEquals("stale_links_2s", 0, "no stale link 2 s after SENTINEL SET"),
			extraEquals("secrets_in_logs", 0, "no secret in any log"),
			extraEquals("secrets_in_events", 0, "no secret in any event"),
		},
	}, &Scenario{
		ID: "F3", Title: "minimal ACL for the sentinel user", ExpectFailover: true,
		Setup:    Setup{Auth: f3Auth},
		Fault:    "sentinels log in to redis as a user with the documented minimal ACL (" + f3MinimalACL + "); SIGKILL the master",
		Expected: "failover works; any -NOPERM becomes a distinct event or log line (a silent stall, redis#9772/#13192, fails)",
		Schedule: func(ctx context.Context, e *Env) error {
			var notes []string
			n, err := aclDenials(ctx, e.Top, "h1", &notes)
			if err != nil {
				return fmt.Errorf("ACL LOG on h1: %w", err)
			}
			for _, l := range notes {
				e.Note("%s", l)
			}
			e.Set("acl_denials_h1", float64(n))
			_, err = killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			n := int(r.Extra["acl_denials_h1"])
			for _, h := range liveRedis(top) {
				d, err := aclDenials(ctx, top, h, &r.Notes)
				if err != nil {
					r.Notes = append(r.Notes, fmt.Sprintf("ACL LOG on %s: %v", h, err))
				}
				n += d
			}
			r.Extra["acl_denials"] = float64(n)
			r.Extra["noperm_surfaced"] = boolf(nopermSurfaced(in, top))
		},
		Criteria: []Criterion{rtoSwitchWithin(7),
			{Name: "every -NOPERM surfaced", Check: func(r *RunResult) (bool, string) {
				d, s := r.Extra["acl_denials"], r.Extra["noperm_surfaced"]
				return d == 0 || s == 1, fmt.Sprintf("acl_denials = %g, surfaced = %g", d, s)
			}},
		},
	})
}
