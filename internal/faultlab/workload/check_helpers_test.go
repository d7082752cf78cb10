package workload

import (
	"strings"
	"testing"
	"time"
)

// Hand-built runs: three redis (r1 r2 r3 at A B C) and three sentinels
// (s1 s2 s3), sampled every 50 ms.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const (
	addrA = "10.0.0.1:6379"
	addrB = "10.0.0.2:6379"
	addrC = "10.0.0.3:6379"
)

var redisAddrs = map[string]string{"r1": addrA, "r2": addrB, "r3": addrC}

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// world describes who is master when, for the sample generator.
type world struct {
	in Input
}

// steady adds samples from..to (ms) for a cluster whose master is master
// (an address) with every other node in live replicating from it, and all
// sentinels naming it with config epoch epoch. dead lists redis targets
// that do not answer (samples with Err).
func (w *world) steady(from, to int, master string, epoch int64, dead ...string) {
	isDead := map[string]bool{}
	for _, d := range dead {
		isDead[d] = true
	}
	for ms := from; ms < to; ms += 50 {
		round := ms / 50
		for _, r := range []string{"r1", "r2", "r3"} {
			s := Sample{At: at(ms), Round: round, Target: r, Kind: KindRedis, Addr: redisAddrs[r]}
			switch {
			case isDead[r]:
				s.Role, s.Err = "?", "connection refused"
			case redisAddrs[r] == master:
				s.Role, s.AcceptsWrite = "master", true
			default:
				s.Role, s.MasterOf = "slave", master
			}
			w.in.Samples = append(w.in.Samples, s)
		}
		for _, sn := range []string{"s1", "s2", "s3"} {
			w.in.Samples = append(w.in.Samples, Sample{At: at(ms).Add(time.Millisecond), Round: round, Target: sn, Kind: KindSentinel,
				Addr: "x:" + sn, MasterAddr: master, ConfigEpoch: epoch, LeaderEpoch: epoch, CurrentEpoch: epoch})
		}
	}
}

// set overrides fields of the samples of target in [from, to).
func (w *world) set(target string, from, to int, f func(*Sample)) {
	for i := range w.in.Samples {
		s := &w.in.Samples[i]
		if s.Target == target && !s.At.Before(at(from)) && s.At.Before(at(to)) {
			f(s)
		}
	}
}

func (w *world) event(ms int, sentinel, channel, payload string) {
	w.in.Events = append(w.in.Events, Event{At: at(ms), Sentinel: sentinel, Channel: channel, Payload: payload})
}

// failover is a clean A → B failover in epoch 1: fault at 1000 ms,
// +odown 3000, +switch-master on every sentinel at 4000, converged at 4500
// (r1 dead from 1000 on, r3 follows B from 4500).
func failover() *world {
	w := &world{}
	w.in.FaultAt = at(1000)
	w.in.OldMaster = addrA
	w.in.FinalMaster = addrB
	w.in.Quorum = 2
	w.in.MasterName = "m"
	w.in.ExpectFailover = true
	w.steady(0, 1000, addrA, 0)
	w.steady(1000, 4500, addrA, 0, "r1")
	w.set("r2", 3900, 4500, func(s *Sample) { s.Role, s.MasterOf, s.AcceptsWrite = "master", "", true })
	for _, sn := range []string{"s1", "s2", "s3"} {
		w.set(sn, 4000, 4500, func(s *Sample) { s.MasterAddr, s.ConfigEpoch = addrB, 1 })
	}
	w.steady(4500, 8000, addrB, 1, "r1")
	w.event(3000, "s1", "+sdown", "master m 10.0.0.1 6379")
	w.event(3000, "s1", "+odown", "master m 10.0.0.1 6379 #quorum 2/2")
	w.event(3010, "s1", "+new-epoch", "1")
	w.event(3020, "s2", "+new-epoch", "1")
	w.event(3021, "s2", "+vote-for-leader", "aaaa 1")
	w.event(3022, "s3", "+new-epoch", "1")
	w.event(3023, "s3", "+vote-for-leader", "aaaa 1")
	w.event(3030, "s1", "+vote-for-leader", "aaaa 1")
	w.event(3100, "s1", "+elected-leader", "master m 10.0.0.1 6379")
	w.event(3200, "s1", "+selected-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379")
	w.event(3900, "s1", "+promoted-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379")
	for _, sn := range []string{"s1", "s2", "s3"} {
		w.event(4000, sn, "+switch-master", "m 10.0.0.1 6379 10.0.0.2 6379")
	}
	w.in.Final = FinalRead{}
	return w
}

// op appends an operation.
func (w *world) op(writer, id string, invoke int, res Result, node string, final bool) {
	w.in.Ops = append(w.in.Ops, Op{Writer: writer, ID: id, Key: "log:0", Invoke: at(invoke), Complete: at(invoke + 2), Result: res, Node: node, Replicas: -1})
	if final {
		w.in.Final["log:0"] = append(w.in.Final["log:0"], id)
	}
}

func violations(r Report, id string) []Violation {
	var out []Violation
	for _, v := range r.Violations {
		if v.ID == id {
			out = append(out, v)
		}
	}
	return out
}

func mustHave(t *testing.T, r Report, id, substr string) {
	t.Helper()
	for _, v := range violations(r, id) {
		if strings.Contains(v.Detail, substr) {
			return
		}
	}
	t.Fatalf("want a %s violation mentioning %q, got %+v", id, substr, r.Violations)
}

func mustNot(t *testing.T, r Report, id string) {
	t.Helper()
	if v := violations(r, id); len(v) > 0 {
		t.Fatalf("want no %s violation, got %+v", id, v)
	}
}
