package faultlab

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// F1's credentials: requirepass on every sentinel (the default user, which
// clients and the observer use) and the ACL user the sentinels log in to
// each other as.
var f1Auth = AuthSetup{SentinelRequirePass: "f1-client-secret", PeerUser: "peer", PeerPass: "f1-peer-secret"}

// f1Probes are the unauthenticated commands of F1: everything that would
// change a sentinel's state, vote, or stop it if it were executed.
func f1Probes(e *Env) [][]string {
	masterIP := e.Top.RedisAddr("h1")
	ip, _, _ := strings.Cut(masterIP, ":")
	fake := strings.Repeat("f", 40)
	return [][]string{
		{"PING"},
		{"SENTINEL", "MASTERS"},
		{"SENTINEL", "SET", MasterName, "down-after-milliseconds", "60000"},
		{"SENTINEL", "SET", MasterName, "quorum", "1"},
		{"SENTINEL", "FAILOVER", MasterName},
		{"SENTINEL", "REMOVE", MasterName},
		{"SENTINEL", "MONITOR", "evil", ip, "6379", "1"},
		{"SENTINEL", "RESET", "*"},
		{"SENTINEL", "CONFIG", "SET", "resolve-hostnames", "yes"},
		{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", ip, "6379", "999", fake},
		{"PUBLISH", "__sentinel__:hello", fmt.Sprintf("198.18.%d.250,26379,%s,0,%s,%s,6379,0", e.Lab.Index(), fake, MasterName, ip)},
		{"HELLO", "3"},
		{"SUBSCRIBE", "+switch-master"},
		{"SHUTDOWN", "NOSAVE"},
	}
}

// f1Effects checks, authenticated, that none of the probes took effect on
// the sentinel of host h; it returns one line per effect found.
func f1Effects(ctx context.Context, e *Env, h string) []string {
	var out []string
	// A read that times out on this loaded machine is not an effect: retry.
	retry := func(f func() error) error {
		var err error
		for i := 0; i < 5; i++ {
			if err = f(); err == nil {
				return nil
			}
			_ = e.Sleep(ctx, 300*time.Millisecond)
		}
		return err
	}
	var m map[string]string
	err := retry(func() (err error) { m, err = e.Top.SentinelMaster(ctx, h); return err })
	if err != nil {
		return []string{fmt.Sprintf("%s: SENTINEL MASTER: %v (removed, reset or shut down?)", h, err)}
	}
	want := map[string]string{"down-after-milliseconds": "2000", "quorum": "2", "num-other-sentinels": "2", "config-epoch": "0", "flags": "master"}
	for k, v := range want {
		if m[k] != v {
			out = append(out, fmt.Sprintf("%s: %s = %s, want %s", h, k, m[k], v))
		}
	}
	var v any
	if err := retry(func() (err error) { v, err = e.Top.SentinelDo(ctx, h, "SENTINEL", "MASTERS"); return err }); err != nil {
		out = append(out, fmt.Sprintf("%s: SENTINEL MASTERS: %v", h, err))
	} else if l, ok := v.([]any); !ok || len(l) != 1 {
		out = append(out, fmt.Sprintf("%s: SENTINEL MASTERS has %v entries", h, v))
	}
	if v, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "CONFIG", "GET", "resolve-hostnames"); err == nil {
		if s := fmt.Sprint(v); strings.Contains(s, "yes") {
			out = append(out, fmt.Sprintf("%s: resolve-hostnames became yes", h))
		}
	}
	if data, err := e.Top.readSentinelConf(ctx, h); err == nil && strings.Contains(string(data), "current-epoch 999") {
		out = append(out, fmt.Sprintf("%s: current-epoch 999 in the config", h))
	}
	if !e.Top.live("sentinel-" + h) {
		out = append(out, fmt.Sprintf("%s: the sentinel is not running", h))
	}
	return out
}

func init() {
	register(&Scenario{
		ID: "F1", Title: "requirepass on sentinels", ExpectFailover: true,
		Setup:    Setup{Auth: f1Auth},
		Fault:    "requirepass and an ACL peer user (sentinel-user/sentinel-pass) on every sentinel; 14 state-changing commands sent to each sentinel without AUTH from c1; then SIGKILL the master",
		Expected: "-NOAUTH for everything but AUTH/HELLO; 0 effects; the peers still elect and fail over",
		Schedule: func(ctx context.Context, e *Env) error {
			c1 := e.Top.Host("c1")
			sent, refused := 0, 0
			for _, h := range e.Top.SentinelHosts {
				for _, args := range f1Probes(e) {
					reply, err := rawCommand(ctx, c1, e.Top.SentinelAddr(h), args...)
					sent++
					if err == nil && strings.HasPrefix(reply, "-NOAUTH") {
						refused++
						continue
					}
					e.Note("%s: unauthenticated %s → %q %v", h, strings.Join(args, " "), reply, err)
				}
			}
			e.Set("unauth_cmds", float64(sent))
			e.Set("unauth_not_noauth", float64(sent-refused))
			// A wrong password is refused too, and leaves the connection unauthenticated.
			reply, err := rawCommand(ctx, c1, e.Top.SentinelAddr("h1"), "AUTH", "wrong")
			e.Set("wrong_auth_refused", boolf(err == nil && strings.HasPrefix(reply, "-WRONGPASS")))
			if err := e.Sleep(ctx, time.Second); err != nil {
				return err
			}
			effects := 0
			for _, h := range e.Top.SentinelHosts {
				for _, l := range f1Effects(ctx, e, h) {
					effects++
					e.Note("effect of an unauthenticated command: %s", l)
				}
			}
			e.Set("unauth_effects", float64(effects))
			_, err = killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			r.Extra["secrets_in_logs"] = float64(secretsInLogs(top, f1Auth.Secrets(), r))
		},
		Criteria: []Criterion{extraEquals("unauth_not_noauth", 0, "every unauthenticated command gets -NOAUTH"),
			extraEquals("unauth_effects", 0, "0 effects of unauthenticated commands"),
			extraEquals("wrong_auth_refused", 1, "AUTH with a wrong password → -WRONGPASS"),
			rtoSwitchWithin(7)},
	}, &Scenario{
		ID: "F6", Title: "deny-scripts-reconfig",
		Fault:    "default deny-scripts-reconfig yes; SENTINEL SET mym notification-script /bin/sh and client-reconfig-script /bin/sh on every sentinel",
		Expected: "-ERR; script paths unchanged (none configured)",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			accepted, control := 0, 0
			for _, h := range e.Top.SentinelHosts {
				for _, opt := range []string{"notification-script", "client-reconfig-script"} {
					_, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "SET", MasterName, opt, "/bin/sh")
					if err == nil || !strings.HasPrefix(err.Error(), "ERR") {
						accepted++
						e.Note("%s: SENTINEL SET %s /bin/sh → %v", h, opt, err)
					} else if h == e.Top.SentinelHosts[0] {
						e.Note("%s: SENTINEL SET %s /bin/sh → %v", h, opt, err)
					}
				}
				// Control: SENTINEL SET itself works on this sentinel.
				if _, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "SET", MasterName, "down-after-milliseconds", "2000"); err == nil {
					control++
				}
			}
			e.Set("script_set_accepted", float64(accepted))
			e.Set("control_set_ok", float64(control))
			e.Heal()
			return nil
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			n := 0
			for name, data := range in.ConfigFiles {
				for _, l := range strings.Split(string(data), "\n") {
					if strings.Contains(l, "notification-script") || strings.Contains(l, "client-reconfig-script") {
						n++
						r.Notes = append(r.Notes, name+": "+l)
					}
				}
			}
			r.Extra["script_lines_in_config"] = float64(n)
		},
		Criteria: []Criterion{noFailover(), extraEquals("script_set_accepted", 0, "SENTINEL SET of a script path → -ERR"),
			extraEquals("script_lines_in_config", 0, "script paths unchanged"),
			extraEquals("control_set_ok", 3, "SENTINEL SET of another option works")},
	})
}

// secretsInLogs counts the lines of every process output file of the lab
// (redis, sentinels) that contain one of the secrets, and notes them.
func secretsInLogs(top *Topology, secrets []string, r *RunResult) int {
	n := 0
	hosts := append([]string{}, top.RedisHosts...)
	for _, h := range top.SentinelHosts {
		if !contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	for _, h := range hosts {
		for _, proc := range []string{"redis-" + h, "sentinel-" + h} {
			for _, ext := range []string{".out", ".err"} {
				data, err := os.ReadFile(top.hostDir(h, proc+ext))
				if err != nil {
					continue
				}
				for _, l := range strings.Split(string(data), "\n") {
					for _, s := range secrets {
						if strings.Contains(l, s) {
							n++
							r.Notes = append(r.Notes, fmt.Sprintf("secret in %s%s: %s", proc, ext, l))
						}
					}
				}
			}
		}
	}
	return n
}
