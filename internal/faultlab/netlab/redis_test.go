package netlab

import (
	"context"
	"strings"
	"testing"
	"time"
)

// redisInfo returns INFO <section> of the redis at addr, seen from `from`.
func redisInfo(from *Host, addr, section string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := from.Exec(ctx, "redis-cli", "-h", strings.Split(addr, ":")[0], "-p", "6379", "INFO", section)
	return string(out), err
}

// waitField polls INFO until it contains want (the replica's state is only
// observable by asking it).
func waitField(t *testing.T, from *Host, addr, section, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		info, err := redisInfo(from, addr, section)
		if err == nil && strings.Contains(info, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %q: %v\n%s", addr, want, err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A real replica follows its master by host name across hosts; a reject
// cut breaks the established replication link, healing restores it.
func TestRedisReplicationUnderCut(t *testing.T) {
	l, hs := newLab(t, "h1", "h2")
	h1, h2 := hs[0], hs[1]
	startRedis(t, h1, ProcSpec{Name: "master"})
	replica, err := h2.Start(ProcSpec{Name: "replica", Argv: []string{"redis-server", "--port", "6379",
		"--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--replicaof", "h1", "6379"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replica.Kill() })
	waitField(t, h2, h2.Addr(6379), "replication", "master_link_status:up", 10*time.Second)
	// The master lists the replica under its own address (no proxy, no NAT).
	waitField(t, h1, h1.Addr(6379), "replication", "slave0:ip="+h2.IP()+",", 5*time.Second)

	heal := mustHealFn(t)(l.CutBoth(h1, h2, Reject))
	// The replica's next REPLCONF ACK (every second) meets the reset.
	waitField(t, h2, h2.Addr(6379), "replication", "master_link_status:down", 10*time.Second)
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	waitField(t, h2, h2.Addr(6379), "replication", "master_link_status:up", 15*time.Second)
}
