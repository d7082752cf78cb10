package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestSamplerHungNode: a paused redis does not stall the others' samples
// (one goroutine per target), its samples fail, and they are stamped when
// sent.
func TestSamplerHungNode(t *testing.T) {
	top := testutil.StartTopology(t, 1)
	ctx := context.Background()
	s, err := StartSampler(ctx, SamplerConfig{MasterName: "none",
		Redis: []Target{{Name: "m", Addr: top.Master.Addr()}, {Name: "r", Addr: top.Replicas[0].Addr()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if err := s.WaitRounds(ctx, 2); err != nil {
		t.Fatal(err)
	}
	hungAt := time.Now()
	top.Replicas[0].Stop()
	defer top.Replicas[0].Cont()
	// Three more samples of each: the paused node's fail after Timeout
	// each, while the master is sampled every 50 ms.
	if err := s.WaitRounds(ctx, 3); err != nil {
		t.Fatal(err)
	}
	samples, _ := s.Stop()
	var healthy, failed int
	for _, x := range samples {
		if x.At.Before(hungAt.Add(10 * time.Millisecond)) {
			continue
		}
		switch {
		case x.Target == "m" && x.Err == "" && x.Role == "master" && x.AcceptsWrite:
			healthy++
		case x.Target == "r" && x.Err != "":
			failed++
		case x.Target == "r":
			t.Errorf("paused replica answered: %+v", x)
		}
	}
	if failed < 2 || healthy < 3*failed {
		t.Fatalf("during the pause: %d master samples, %d failed replica samples; want the master sampled on (≥ 3× as often)", healthy, failed)
	}
	for _, x := range samples {
		if x.Target == "r" && x.Err == "" && x.Role != "slave" {
			t.Fatalf("replica sample %+v", x)
		}
	}
}

// TestSamplerSentinelRestart: the event subscription survives a sentinel
// restart (a marker records the gap) and events after it are recorded;
// the sentinel's samples carry its config epoch and address.
func TestSamplerSentinelRestart(t *testing.T) {
	top := testutil.StartTopology(t, 1)
	dir := t.TempDir()
	port := testutil.FreePort(t)
	conf := filepath.Join(dir, "sentinel.conf")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\n%s", port, testutil.SentinelConf("m", top.Master.Port, 1, 1000, 10000))
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := testutil.Binary(t, "redis-sentinel")
	sen := testutil.StartSentinelConf(t, bin, conf, port, "")
	ctx := context.Background()
	s, err := StartSampler(ctx, SamplerConfig{MasterName: "m",
		Redis:     []Target{{Name: "r1", Addr: top.Master.Addr()}},
		Sentinels: []Target{{Name: "s1", Addr: sen.Addr()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if err := s.WaitRounds(ctx, 2); err != nil {
		t.Fatal(err)
	}
	sen.Kill()
	sen = testutil.StartSentinelConf(t, bin, conf, port, "")
	// Events flow again once the sampler resubscribed: SENTINEL RESET
	// publishes +reset-master; repeat it until one is recorded.
	c := redis.NewClient(&redis.Options{Addr: sen.Addr(), Protocol: 2})
	defer c.Close()
	testutil.WaitFor(t, 10*time.Second, "+reset-master recorded after the restart", func() bool {
		_ = c.Do(ctx, "SENTINEL", "RESET", "m").Err()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.events {
			if e.Channel == "+reset-master" && e.Sentinel == "s1" {
				return true
			}
		}
		return false
	})
	samples, events := s.Stop()
	var gap bool
	for _, e := range events {
		if e.Channel == ChanDisconnected && e.Sentinel == "s1" {
			gap = true
		}
	}
	if !gap {
		t.Errorf("no %s marker for the restart", ChanDisconnected)
	}
	var ok int
	for _, x := range samples {
		if x.Target == "s1" && x.Err == "" {
			ok++
			if x.MasterAddr != top.Master.Addr() || x.ConfigEpoch != 0 || x.Kind != KindSentinel || x.Addr != sen.Addr() {
				t.Fatalf("sentinel sample %+v", x)
			}
		}
	}
	if ok == 0 {
		t.Fatal("no successful sentinel sample")
	}
}
