// Package interop runs gosentinel in mixed quorums with the real
// redis-sentinel 7.0.15 over real redis-server instances.
package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// gosentinelBin is built once in TestMain.
var gosentinelBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	return testutil.RunWithGosentinel("interop", func(bin, _ string) int {
		gosentinelBin = bin
		return m.Run()
	})
}

const master = "mym"

// member describes one sentinel of a mixed deployment.
type member struct {
	gosentinel  bool
	valkey      bool // valkey-sentinel instead of redis-sentinel (valkey_test.go)
	quorum      int
	downAfterMs int
}

func (m member) kind() string {
	if m.gosentinel {
		return "gosentinel"
	}
	if m.valkey {
		return "valkey-sentinel"
	}
	return "redis-sentinel"
}

// deployment is a master, 2 replicas and the sentinels of members.
type deployment struct {
	top         *testutil.Topology
	members     []member
	sentinels   []*testutil.Process
	valkeyNodes bool // valkey-server data nodes
}

func startDeployment(t *testing.T, members []member) *deployment {
	t.Helper()
	return startDeploymentNodes(t, members, false)
}

// startDeploymentNodes is startDeployment, with valkey-server data nodes
// when valkeyNodes is set.
func startDeploymentNodes(t *testing.T, members []member, valkeyNodes bool) *deployment {
	t.Helper()
	d := &deployment{members: members, valkeyNodes: valkeyNodes}
	if valkeyNodes {
		d.top = testutil.StartValkeyTopology(t, 2)
	} else {
		d.top = testutil.StartTopology(t, 2)
	}
	t.Cleanup(func() { d.dumpEvents(t) }) // runs before the processes are killed
	for _, mb := range members {
		dir := t.TempDir()
		port := testutil.FreePort(t)
		conf := filepath.Join(dir, "sentinel.conf")
		log := filepath.Join(dir, "sentinel.log")
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%s", port, strconv.Quote(log),
			testutil.SentinelConf(master, d.top.Master.Port, mb.quorum, mb.downAfterMs, 3000))
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := gosentinelBin
		switch {
		case mb.valkey && !mb.gosentinel:
			bin = testutil.ValkeySentinelBin(t)
		case !mb.gosentinel:
			bin = testutil.Binary(t, "redis-sentinel")
		}
		d.sentinels = append(d.sentinels, testutil.StartSentinelConf(t, bin, conf, port, log))
	}
	ctx := context.Background()
	for _, s := range d.sentinels {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2})
		// ping-period 400, not 100: with the master SDOWN, replica INFO must
		// be fresher than 5×ping-period to be eligible, and replicas of a
		// failing master are only asked every 1000 ms, so 100 makes every
		// replica "no good" most of the time (real Sentinel behaves the
		// same: -failover-abort-no-good-slave, retried 2×failover-timeout
		// later).
		err := c.Do(ctx, "SENTINEL", "DEBUG", "ping-period", "400", "ask-period", "100",
			"publish-period", "200", "info-period", "500").Err()
		c.Close()
		if err != nil {
			t.Fatalf("SENTINEL DEBUG on %s: %v", s.Addr(), err)
		}
	}
	n := len(members)
	for i, s := range d.sentinels {
		testutil.WaitFor(t, 20*time.Second, members[i].kind()+" "+s.Addr()+" sees its peers and replicas", func() bool {
			m, err := testutil.SentinelMaster(s.Addr(), master)
			return err == nil && m["num-other-sentinels"] == strconv.Itoa(n-1) && m["num-slaves"] == "2"
		})
	}
	return d
}

// quorum2 is a member with quorum 2 and down-after-milliseconds 1000.
func quorum2(gos bool) member { return member{gosentinel: gos, quorum: 2, downAfterMs: 1000} }

// waitNewMaster waits until every sentinel reports the same master, other
// than oldAddr, and returns its address.
func (d *deployment) waitNewMaster(t *testing.T, oldAddr string) string {
	t.Helper()
	var newAddr string
	testutil.WaitFor(t, 30*time.Second, "all sentinels agree on a new master", func() bool {
		seen := ""
		for _, s := range d.sentinels {
			a, err := testutil.MasterAddr(s.Addr(), master)
			if err != nil || a == oldAddr || (seen != "" && a != seen) {
				return false
			}
			seen = a
		}
		newAddr = seen
		return true
	})
	return newAddr
}

// killAndAgree SIGKILLs d.top.Master and waits until every sentinel
// reports the same new master and logged exactly one +switch-master for
// this change. It
// returns the new address and the time from kill to agreement.
func (d *deployment) killAndAgree(t *testing.T) (string, time.Duration) {
	t.Helper()
	oldAddr := d.top.Master.Addr()
	start := time.Now()
	d.top.Master.Kill()
	newAddr := d.waitNewMaster(t, oldAddr)
	agree := time.Since(start)
	sw := "+switch-master " + master + " " + strings.Replace(oldAddr, ":", " ", 1) + " " + strings.Replace(newAddr, ":", " ", 1)
	for i, s := range d.sentinels {
		testutil.WaitFor(t, 20*time.Second, d.members[i].kind()+" logs "+sw, func() bool {
			l := s.Log()
			return strings.Count(l, sw) == 1
		})
	}
	testutil.WaitFor(t, 10*time.Second, "new master reports role master", func() bool {
		r, err := testutil.Role(newAddr)
		return err == nil && r == "master"
	})
	return newAddr, agree
}

// leaders returns the indexes of the sentinels that logged
// +elected-leader (several when a first election failed or a failover
// timed out and a later epoch elected another sentinel).
func (d *deployment) leaders() []int {
	var out []int
	for i, s := range d.sentinels {
		if strings.Contains(s.Log(), "+elected-leader") {
			out = append(out, i)
		}
	}
	return out
}

// dumpEvents logs the Sentinel events of every sentinel if the test
// failed.
func (d *deployment) dumpEvents(t *testing.T) {
	if !t.Failed() && os.Getenv("INTEROP_DUMP") == "" {
		return
	}
	for i, s := range d.sentinels {
		var ev []string
		for _, line := range strings.Split(s.Log(), "\n") {
			if strings.Contains(line, " # ") || strings.Contains(line, " * +") || strings.Contains(line, "voted for") {
				ev = append(ev, line)
			}
		}
		t.Logf("%s %s:\n%s", d.members[i].kind(), s.Addr(), strings.Join(ev, "\n"))
	}
}

// oldMasterDemoted restarts the old master and waits for a sentinel to
// turn it into a replica of the new one.
func (d *deployment) oldMasterDemoted(t *testing.T, newAddr string) {
	t.Helper()
	var old *testutil.Process
	if d.valkeyNodes {
		old = testutil.StartValkeyOnPort(t, d.top.Master.Port)
	} else {
		old = testutil.StartRedisOnPort(t, d.top.Master.Port)
	}
	testutil.WaitFor(t, 30*time.Second, "old master reconfigured as replica of "+newAddr, func() bool {
		info, err := testutil.Info(old.Addr(), "replication")
		_, port, _ := strings.Cut(newAddr, ":")
		return err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_port:"+port)
	})
}

func TestMixedQuorum(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	// A sentinel with quorum 1 and a short down-after reaches ODOWN alone
	// and asks for votes first; the others (long down-after) only vote. This
	// decides who is elected: once gosentinel, once a real redis-sentinel.
	fast := func(gos bool) member { return member{gosentinel: gos, quorum: 1, downAfterMs: 1000} }
	slow := func(gos bool) member { return member{gosentinel: gos, quorum: 2, downAfterMs: 20000} }
	tests := []struct {
		name       string
		members    []member
		wantLeader int // index in members, -1: any
	}{
		{"gosentinel leader, 2 real voters", []member{fast(true), slow(false), slow(false)}, 0},
		{"real leader, gosentinel votes", []member{fast(false), slow(true), slow(false)}, 0},
		{"1 gosentinel + 2 real, same config", []member{quorum2(true), quorum2(false), quorum2(false)}, -1},
		{"2 gosentinel + 1 real, same config", []member{quorum2(true), quorum2(true), quorum2(false)}, -1},
		{"baseline: 3 real", []member{quorum2(false), quorum2(false), quorum2(false)}, -1},
		{"3 gosentinel", []member{quorum2(true), quorum2(true), quorum2(true)}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := startDeployment(t, tc.members)
			newAddr, agree := d.killAndAgree(t)
			ls := d.leaders()
			if len(ls) == 0 {
				t.Fatal("no sentinel logged +elected-leader")
			}
			if tc.wantLeader >= 0 && (len(ls) != 1 || ls[0] != tc.wantLeader) {
				t.Errorf("elected = %v, want only %d", ls, tc.wantLeader)
			}
			var kinds []string
			for _, l := range ls {
				kinds = append(kinds, tc.members[l].kind())
			}
			t.Logf("kill -> all 3 agree on %s in %v; elected: %s", newAddr, agree, strings.Join(kinds, ", "))
			d.oldMasterDemoted(t, newAddr)
		})
	}
}
