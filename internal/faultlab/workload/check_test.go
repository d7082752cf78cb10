package workload

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCheckCleanFailover(t *testing.T) {
	w := failover()
	w.op("w1", "w1-1", 500, ResultOK, addrA, true)
	w.op("w1", "w1-2", 1200, ResultUnknown, "", false)
	w.op("w1", "w1-3", 4100, ResultOK, addrB, true)
	w.op("w2", "w2-1", 4300, ResultFail, "", false)
	w.op("w2", "w2-2", 4600, ResultOK, addrB, true)
	r := Check(w.in)
	if len(r.Violations) != 0 {
		t.Fatalf("violations: %+v", r.Violations)
	}
	want := Report{Writes: 5, Acked: 3, Unknown: 1, Failed: 1, Failovers: 1, EpochsBurned: 1}
	if r.Writes != want.Writes || r.Acked != want.Acked || r.Unknown != want.Unknown || r.Failed != want.Failed ||
		r.LostAck != 0 || r.Phantom != 0 || r.Failovers != 1 || r.FalseFailovers != 0 || r.EpochsBurned != 1 {
		t.Fatalf("figures: %+v", r)
	}
	if r.RTODetect != 2*time.Second || r.RTOSwitch != 3*time.Second {
		t.Fatalf("RTO detect %v switch %v", r.RTODetect, r.RTOSwitch)
	}
	// L1 breaks at the fault (r1 named but dead) and holds from 4500 ms
	// (r3 replicates from B), give or take one grid step.
	if r.RTOConverged < 3490*time.Millisecond || r.RTOConverged > 3510*time.Millisecond {
		t.Fatalf("RTO converged %v, want ~3.5s", r.RTOConverged)
	}
	// Acknowledged by the final master: w1-3 at 4102 ms, w2-2 at 4602 ms.
	if r.RTOClientBy["w1"] != 3102*time.Millisecond || r.RTOClientBy["w2"] != 3602*time.Millisecond || r.RTOClient != 3602*time.Millisecond {
		t.Fatalf("RTO client %v by %v", r.RTOClient, r.RTOClientBy)
	}
	if r.SwitchesBy["s1"] != 1 || r.SwitchesBy["s2"] != 1 || r.SwitchesBy["s3"] != 1 {
		t.Fatalf("switches by sentinel: %v", r.SwitchesBy)
	}
	// r2 reports master from 3900 while r1 is dead: never two masters.
	if r.SplitBrainS != 0 || r.MaxQuorumMasters != 1 {
		t.Fatalf("split brain %v s, quorum masters %d", r.SplitBrainS, r.MaxQuorumMasters)
	}
}

func TestCheckWrites(t *testing.T) {
	w := failover()
	w.op("w1", "w1-1", 500, ResultOK, addrA, false)                      // lost
	w.op("w1", "w1-2", 600, ResultFail, "", true)                        // W1
	w.op("w1", "w1-3", 700, ResultUnknown, "", true)                     // unknown applied
	w.op("w1", "w1-4", 800, ResultOK, addrA, true)                       // fine
	w.in.Final["log:0"] = append(w.in.Final["log:0"], "w1-4", "ghost-1") // duplicate + phantom
	r := Check(w.in)
	if r.LostAck != 1 || r.Phantom != 1 || r.Duplicates != 1 || r.FailedApplied != 1 || r.UnknownApplied != 1 {
		t.Fatalf("figures: lost %d phantom %d dup %d failedApplied %d unknownApplied %d", r.LostAck, r.Phantom, r.Duplicates, r.FailedApplied, r.UnknownApplied)
	}
	mustHave(t, r, "W1", "w1-2")
	if pw := r.PerWriter["w1"]; pw != (WriterReport{Writes: 4, Acked: 2, LostAck: 1, Unknown: 1, Failed: 1}) {
		t.Fatalf("per writer: %+v", pw)
	}
	// No ok write after the fault: RTO_client is -1.
	if r.RTOClient != -1 {
		t.Fatalf("RTO client %v, want -1", r.RTOClient)
	}
	// A write invoked after the fault but acknowledged by the dying old
	// master does not end the outage.
	w.op("w1", "w1-5", 1001, ResultOK, addrA, true)
	if r := Check(w.in); r.RTOClient != -1 {
		t.Fatalf("RTO client %v after an ack by the old master, want -1", r.RTOClient)
	}
}

func TestCheckStaleAcks(t *testing.T) {
	w := failover()
	w.op("w1", "w1-1", 3990, ResultOK, addrA, true) // before the switch: not stale
	w.op("w1", "w1-2", 4200, ResultOK, addrA, true) // 0.2 s after: stale
	w.op("w1", "w1-3", 5500, ResultOK, addrA, true) // 1.5 s after: stale and late
	w.op("w1", "w1-4", 5600, ResultOK, addrB, true) // the new master: fine
	r := Check(w.in)
	if r.StaleAcks != 2 || r.StaleAcksLate != 1 {
		t.Fatalf("stale %d late %d, want 2 1", r.StaleAcks, r.StaleAcksLate)
	}
	// A switch back to A at 5 s ends A's stale window (w1-3 is fine) and
	// opens B's (w1-4, 0.6 s later, is stale).
	w.event(5000, "s1", "+switch-master", "m 10.0.0.2 6379 10.0.0.1 6379")
	r = Check(w.in)
	if r.StaleAcks != 2 || r.StaleAcksLate != 0 {
		t.Fatalf("after a switch back: stale %d late %d, want 2 0", r.StaleAcks, r.StaleAcksLate)
	}
}

func TestCheckSplitBrain(t *testing.T) {
	w := failover()
	// r1 comes back at 5000 still master and accepting writes until 6000.
	w.set("r1", 5000, 6000, func(s *Sample) { s.Role, s.Err, s.AcceptsWrite, s.MasterOf = "master", "", true, "" })
	w.set("r1", 6000, 8000, func(s *Sample) { s.Role, s.Err, s.MasterOf = "slave", "", addrB })
	r := Check(w.in)
	if r.SplitBrainS < 0.99 || r.SplitBrainS > 1.01 {
		t.Fatalf("split brain %v s, want 1", r.SplitBrainS)
	}
	// Refusing writes (min-replicas-to-write) is not split brain.
	w.set("r1", 5000, 6000, func(s *Sample) { s.AcceptsWrite = false })
	if r := Check(w.in); r.SplitBrainS != 0 {
		t.Fatalf("split brain %v s with the old master refusing writes", r.SplitBrainS)
	}
}

func TestCheckS1(t *testing.T) {
	w := failover()
	mustNot(t, Check(w.in), "S1")
	// s2 also claims to be leader of epoch 1.
	w.event(3150, "s2", "+elected-leader", "master m 10.0.0.1 6379")
	mustHave(t, Check(w.in), "S1", "m epoch 1")
	// ...but in epoch 2 it is a new election, not a second leader.
	w = failover()
	w.event(3140, "s2", "+new-epoch", "2")
	w.event(3150, "s2", "+elected-leader", "master m 10.0.0.1 6379")
	mustNot(t, Check(w.in), "S1")
	// ...also when s2's +new-epoch 2 was lost in a subscription gap: its
	// sampled leader-epoch (its vote for itself) names the epoch.
	w = failover()
	w.event(3120, "s2", ChanDisconnected, "EOF")
	w.event(3150, "s2", "+elected-leader", "master m 10.0.0.1 6379")
	w.set("s2", 3150, 3300, func(s *Sample) { s.LeaderEpoch = 2 })
	mustNot(t, Check(w.in), "S1")
	w.set("s2", 3150, 3300, func(s *Sample) { s.LeaderEpoch = 1 })
	mustHave(t, Check(w.in), "S1", "m epoch 1")
}

func TestCheckS2(t *testing.T) {
	w := failover()
	mustNot(t, Check(w.in), "S2")
	// s3 reports epoch 1 with C while the others say B.
	w.set("s3", 6000, 6100, func(s *Sample) { s.MasterAddr = addrC })
	mustHave(t, Check(w.in), "S2", "config-epoch 1")
	// With epoch 2 it is a later configuration, not a conflict.
	w.set("s3", 6000, 6100, func(s *Sample) { s.ConfigEpoch = 2 })
	mustNot(t, Check(w.in), "S2")
}

func TestCheckS3(t *testing.T) {
	w := failover()
	w.event(2000, "s2", HelloChannel, "10.0.0.9,26379,bbbb,0,m,10.0.0.1,6379,0")
	w.in.Events[len(w.in.Events)-1].Via = "r2"
	w.event(5000, "s2", HelloChannel, "10.0.0.9,26379,bbbb,1,m,10.0.0.2,6379,1")
	w.in.Events[len(w.in.Events)-1].Via = "r2"
	mustNot(t, Check(w.in), "S3")
	// s2's config epoch goes back to 0 (a restart that lost its state).
	w.set("s2", 7000, 7100, func(s *Sample) { s.ConfigEpoch = 0 })
	mustHave(t, Check(w.in), "S3", "s2: config-epoch went from 1")
	// Allowed once when the scenario restored an old config on purpose,
	// in each stream (the restart shows in the hellos too)...
	w.in.EpochResets = []string{"s2"}
	w.event(7050, "s2", HelloChannel, "10.0.0.9,26379,bbbb,0,m,10.0.0.1,6379,0")
	w.in.Events[len(w.in.Events)-1].Via = "r2"
	mustNot(t, Check(w.in), "S3")
	// ...but not twice in one stream.
	w.set("s2", 7100, 7200, func(s *Sample) { s.ConfigEpoch = 1 })
	w.set("s2", 7200, 7300, func(s *Sample) { s.ConfigEpoch = 0 })
	mustHave(t, Check(w.in), "S3", "s2: config-epoch went from 1")
}

// hello adds a hello from sender heard on node via at ms.
func (w *world) hello(ms int, sender, via, payload string) {
	w.event(ms, sender, HelloChannel, payload)
	w.in.Events[len(w.in.Events)-1].Via = via
}

// TestCheckS3Hellos: hellos are ordered by the sender's config epoch, not
// by arrival.
func TestCheckS3Hellos(t *testing.T) {
	// C3 / C7: a hello sent before the failover (current 0, config 0)
	// held by the partition arrives after newer ones: a late delivery.
	w := failover()
	w.hello(2000, "s2", "r1", "10.0.0.9,26379,bbbb,0,m,10.0.0.1,6379,0")
	w.hello(5000, "s2", "r1", "10.0.0.9,26379,bbbb,1,m,10.0.0.2,6379,1")
	w.hello(5400, "s2", "r1", "10.0.0.9,26379,bbbb,0,m,10.0.0.1,6379,0")
	w.hello(5410, "s2", "r1", "10.0.0.9,26379,bbbb,0,m,10.0.0.1,6379,0")
	mustNot(t, Check(w.in), "S3")
	// C5: an election burned epoch 1 without a failover (config epoch
	// stays 0); the same old hello replicated from the master reaches r2
	// after the direct one: not ordered, not a decrease.
	w = failover()
	w.hello(5000, "s2", "r2", "10.0.0.9,26379,bbbb,1,m,10.0.0.2,6379,1")
	w.hello(6000, "s2", "r3", "10.0.0.9,26379,bbbb,2,m,10.0.0.2,6379,1")
	w.hello(6001, "s2", "r3", "10.0.0.9,26379,bbbb,1,m,10.0.0.2,6379,1")
	mustNot(t, Check(w.in), "S3")
	// A hello sent after the sender reached config epoch 2 (so after
	// every config-epoch-1 hello) with a lower current epoch than one of
	// those is a real decrease, whatever node it was heard on.
	w.hello(7000, "s2", "r2", "10.0.0.9,26379,bbbb,1,m,10.0.0.3,6379,2")
	mustHave(t, Check(w.in), "S3", "s2: hello with config-epoch 2 of m carried current epoch 1")
	// Hellos of another sender or master are another order.
	w = failover()
	w.hello(5000, "s2", "r2", "10.0.0.9,26379,bbbb,3,m,10.0.0.2,6379,1")
	w.hello(6000, "s3", "r2", "10.0.0.8,26379,cccc,1,m,10.0.0.3,6379,2")
	w.hello(6000, "s2", "r2", "10.0.0.9,26379,bbbb,1,other,10.0.0.3,6379,2")
	mustNot(t, Check(w.in), "S3")
}

// TestCheckS3Disk: the current epoch a restart comes back with is the one
// on disk; it never decreases either.
func TestCheckS3Disk(t *testing.T) {
	conf := func(cur, cfg int) []byte {
		return []byte(fmt.Sprintf("sentinel myid %s\nsentinel monitor m 10.0.0.1 6379 2\nsentinel config-epoch m %d\nsentinel current-epoch %d\n",
			strings.Repeat("b", 40), cfg, cur))
	}
	w := failover()
	w.in.ConfigHistory = []ConfigFile{
		{At: at(1000), Sentinel: "s2", Data: conf(0, 0)},
		{At: at(3000), Sentinel: "s2", Data: conf(1, 0)},
		{At: at(4000), Sentinel: "s2", Data: conf(2, 1)},
		{At: at(4500), Sentinel: "s2", Data: []byte("sentinel monitor m")}, // torn copy: L2's business
	}
	mustNot(t, Check(w.in), "S3")
	// A restart that lost the epoch burned by a vote (config epoch 1 kept;
	// a loaded current epoch is at least every config epoch).
	w.in.ConfigHistory = append(w.in.ConfigHistory, ConfigFile{At: at(8000), Sentinel: "s2", Data: conf(0, 1)})
	mustHave(t, Check(w.in), "S3", "s2: current-epoch on disk went from 2")
	// Once allowed for a sentinel restarted from an old copy on purpose.
	w.in.EpochResets = []string{"s2"}
	mustNot(t, Check(w.in), "S3")
	w.in.ConfigHistory = append(w.in.ConfigHistory, ConfigFile{At: at(9000), Sentinel: "s2", Data: conf(3, 2)},
		ConfigFile{At: at(9500), Sentinel: "s2", Data: conf(2, 2)})
	mustHave(t, Check(w.in), "S3", "s2: current-epoch on disk went from 3")
	// A config epoch going back on disk is a decrease too.
	w.in.EpochResets = nil
	w.in.ConfigHistory = w.in.ConfigHistory[:3]
	w.in.ConfigHistory = append(w.in.ConfigHistory, ConfigFile{At: at(9000), Sentinel: "s2", Data: conf(2, 0)})
	mustHave(t, Check(w.in), "S3", "s2: config-epoch of m on disk went from 1")
}

func TestCheckS4(t *testing.T) {
	w := failover()
	w.event(3300, "s2", "+vote-for-leader", "aaaa 2") // another epoch: fine
	mustNot(t, Check(w.in), "S4")
	w.event(3400, "s3", "+vote-for-leader", "cccc 1") // second vote in epoch 1
	mustHave(t, Check(w.in), "S4", "s3 epoch 1")
}

func TestCheckS5(t *testing.T) {
	w := failover()
	w.in.Quorum = 1
	mustNot(t, Check(w.in), "S5")
	// With quorum 1, s3 alone naming C makes two "quorum" masters.
	w.set("s3", 6000, 6200, func(s *Sample) { s.MasterAddr, s.ConfigEpoch = addrC, 2 })
	r := Check(w.in)
	mustHave(t, r, "S5", addrC)
	if r.MaxQuorumMasters != 2 {
		t.Fatalf("max quorum masters %d, want 2", r.MaxQuorumMasters)
	}
	// With quorum 2, one sentinel is not a quorum.
	w.in.Quorum = 2
	if r := Check(w.in); len(violations(r, "S5")) != 0 || r.MaxQuorumMasters != 1 {
		t.Fatalf("quorum 2: %+v, max %d", violations(r, "S5"), r.MaxQuorumMasters)
	}
}

func TestCheckS6(t *testing.T) {
	w := failover()
	w.in.Priority0 = []string{addrC}
	mustNot(t, Check(w.in), "S6")
	w.in.Priority0 = []string{addrB}
	mustHave(t, Check(w.in), "S6", "replica-priority 0")

	w = failover()
	w.event(2500, "s1", "+sdown", "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379")
	mustHave(t, Check(w.in), "S6", "SDOWN")
	w.event(2600, "s1", "-sdown", "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379")
	mustNot(t, Check(w.in), "S6")
	// B9: the replica turns SDOWN for the leader after it was selected
	// (a promoted replica starved of CPU answers late); +promoted-slave
	// is the promotion confirmed by INFO, not a second selection.
	w = failover()
	w.event(3500, "s1", "+sdown", "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379")
	mustNot(t, Check(w.in), "S6")
	// A promoted replica-priority 0 node is still one.
	w.in.Priority0 = []string{addrB}
	mustHave(t, Check(w.in), "S6", "+promoted-slave 10.0.0.2:6379 by s1")

	w = failover()
	w.set("r2", 2900, 3200, func(s *Sample) { s.Role, s.MasterOf = "master", "" })
	mustHave(t, Check(w.in), "S6", "sampled as a master")

	// A ROLE sent before the selection but answered after it (a slow
	// reply under load) may show the promotion itself: not evidence.
	w = failover()
	w.set("r2", 3050, 3150, func(s *Sample) { s.Role, s.MasterOf, s.Done = "master", "", at(3250) })
	mustNot(t, Check(w.in), "S6")
	// Answered at once, it is.
	w.set("r2", 3050, 3150, func(s *Sample) { s.Done = s.At.Add(10 * time.Millisecond) })
	mustHave(t, Check(w.in), "S6", "sampled as a master")

	// B3p: an earlier attempt selected (and promoted) r2, its leader
	// crashed; the next leader selects r2 again, now a master: allowed.
	w.event(2800, "s2", "+selected-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379")
	mustNot(t, Check(w.in), "S6")
}

// TestCheckS6ObservedSelection: B3k SIGKILLs the leader on the event it
// waits for; the schedule's subscription got the leader's +selected-slave,
// the recorder's did not (the kill landed between the two connections'
// writes), and the replica the leader had already sent SLAVEOF NO ONE is
// rightly selected again by the next leader (fault lab, go-valkey seed 1,
// 2026-12-04 06:03 UTC).
func TestCheckS6ObservedSelection(t *testing.T) {
	w := failover()
	w.set("r2", 2900, 3200, func(s *Sample) { s.Role, s.MasterOf = "master", "" })
	mustHave(t, Check(w.in), "S6", "sampled as a master")
	sel := Event{At: at(2800), Sentinel: "s2", Channel: "+selected-slave", Payload: "slave 10.0.0.2:6379 10.0.0.2 6379 @ m 10.0.0.1 6379"}
	w.in.Observed = []Event{sel}
	mustNot(t, Check(w.in), "S6")
	// An observed event the recorder has too is not counted twice.
	w = failover()
	w.event(2800, "s2", "+selected-slave", sel.Payload)
	w.in.Observed = []Event{{At: at(2810), Sentinel: "s2", Channel: sel.Channel, Payload: sel.Payload}}
	if n := len(withObserved(w.in.Events, w.in.Observed)); n != len(w.in.Events) {
		t.Fatalf("%d events with the observed copy, want %d", n, len(w.in.Events))
	}
	// Another sentinel's selection does not stand for the killed one's.
	if n := len(withObserved(w.in.Events, []Event{{At: at(2810), Sentinel: "s3", Channel: sel.Channel, Payload: sel.Payload}})); n != len(w.in.Events)+1 {
		t.Fatalf("another sentinel's event merged away: %d events", n)
	}
}

// TestCheckS6SDownAcrossSwitch: a replica's SDOWN belongs to the replica
// object of one master. +switch-master re-creates a sentinel's replica
// objects (not SDOWN, and no -sdown is published), so an SDOWN seen under
// the old master says nothing about a selection in a later failover (fault
// lab C7: "+selected-slave … the replica is SDOWN for that sentinel" on a
// replica that sentinel had marked SDOWN two switches earlier).
func TestCheckS6SDownAcrossSwitch(t *testing.T) {
	second := func() *world {
		w := failover()
		// s1 marks r3 SDOWN under the old master A, then switches to B.
		w.event(2500, "s1", "+sdown", "slave 10.0.0.3:6379 10.0.0.3 6379 @ m 10.0.0.1 6379")
		// A later failover of B by s1 selects r3 (a replica of B).
		w.event(6000, "s1", "+selected-slave", "slave 10.0.0.3:6379 10.0.0.3 6379 @ m 10.0.0.2 6379")
		return w
	}
	w := second()
	mustNot(t, Check(w.in), "S6")
	// SDOWN again under the new master, not cleared: a real violation.
	w.event(5500, "s1", "+sdown", "slave 10.0.0.3:6379 10.0.0.3 6379 @ m 10.0.0.2 6379")
	mustHave(t, Check(w.in), "S6", "SDOWN for that sentinel")
	// Another sentinel's SDOWN is not s1's.
	w = second()
	w.event(5500, "s2", "+sdown", "slave 10.0.0.3:6379 10.0.0.3 6379 @ m 10.0.0.2 6379")
	mustNot(t, Check(w.in), "S6")
	// +reset-master drops the replica objects too.
	w = second()
	w.event(5500, "s1", "+sdown", "slave 10.0.0.3:6379 10.0.0.3 6379 @ m 10.0.0.2 6379")
	w.event(5600, "s1", "+reset-master", "master m 10.0.0.2 6379")
	mustNot(t, Check(w.in), "S6")
	// After a broken subscription (events missed, or the sentinel
	// restarted) the sentinel's SDOWN state is unknown: not judged.
	w = second()
	w.event(5500, "s1", "+sdown", "slave 10.0.0.3:6379 10.0.0.3 6379 @ m 10.0.0.2 6379")
	w.event(5600, "s1", ChanDisconnected, "EOF")
	mustNot(t, Check(w.in), "S6")
}

func TestCheckL1(t *testing.T) {
	w := failover()
	mustNot(t, Check(w.in), "L1")
	// s3 never switches: the sentinels disagree at the end.
	w.set("s3", 4000, 8000, func(s *Sample) { s.MasterAddr, s.ConfigEpoch = addrA, 0 })
	r := Check(w.in)
	mustHave(t, r, "L1", "disagree")
	if r.RTOConverged != -1 {
		t.Fatalf("RTO converged %v, want -1", r.RTOConverged)
	}
	// r3 keeps following the dead A.
	w = failover()
	w.set("r3", 4500, 8000, func(s *Sample) { s.MasterOf = addrA })
	mustHave(t, Check(w.in), "L1", "r3 reports role slave")
	// A dead replica does not count against L1.
	w.set("r3", 4500, 8000, func(s *Sample) { s.Err = "connection refused" })
	mustNot(t, Check(w.in), "L1")
}

func TestCheckL2R1(t *testing.T) {
	w := failover()
	w.in.ConfigFiles = map[string][]byte{"s1": []byte("sentinel monitor m 127.0.0.1 6379 2\n")}
	w.in.ConfigHistory = []ConfigFile{{At: at(100), Sentinel: "s2", Data: []byte("port 26379\n")}}
	r := Check(w.in)
	mustNot(t, r, "L2")
	mustNot(t, r, "R1")
	w.in.ConfigFiles["s2"] = []byte("sentinel monitor m 127.0.0.1 6379\n") // truncated line
	w.in.ConfigHistory = append(w.in.ConfigHistory, ConfigFile{At: at(200), Sentinel: "s3", Data: []byte("port 70000\n")})
	w.in.Crashes = []string{"s2 (exit 2)"}
	r = Check(w.in)
	mustHave(t, r, "L2", "s2")
	mustHave(t, r, "L2", "s3 at")
	mustHave(t, r, "R1", "s2 (exit 2)")
}

func TestCheckEventFigures(t *testing.T) {
	w := failover()
	w.in.ExpectFailover = false
	w.event(500, "s2", "+tilt", "#tilt mode entered")
	w.set("s3", 600, 900, func(s *Sample) { s.TILT = true }) // tilt seen only in samples
	w.event(700, "s1", "+sdown", "master m 10.0.0.1 6379")
	w.event(800, "s1", "-sdown", "master m 10.0.0.1 6379")
	w.event(900, "s2", "-failover-abort-not-elected", "master m 10.0.0.1 6379")
	w.event(950, "s2", "-failover-abort-no-good-slave", "master m 10.0.0.1 6379")
	w.event(960, "s2", "+sdown", "master other 10.9.9.9 6379") // another master: ignored
	w.event(970, "s2", "-sdown", "master other 10.9.9.9 6379")
	r := Check(w.in)
	if r.TILTs != 2 || r.SDOWNFlaps != 1 || r.NotElected != 1 || r.NoGoodSlave != 1 || r.FalseFailovers != 1 {
		t.Fatalf("tilts %d flaps %d notElected %d noGood %d false %d", r.TILTs, r.SDOWNFlaps, r.NotElected, r.NoGoodSlave, r.FalseFailovers)
	}
	// The epoch before the fault is the baseline: a sentinel first heard
	// at epoch 5 before the fault that ends at 7 burned 2.
	w.event(200, "s3", "+new-epoch", "5")
	w.event(5000, "s3", "+new-epoch", "7")
	if r := Check(w.in); r.EpochsBurned != 2 {
		t.Fatalf("epochs burned %d, want 2", r.EpochsBurned)
	}
	// A second switch (to C, epoch 2) is a second failover.
	w.set("s1", 7000, 8000, func(s *Sample) { s.MasterAddr, s.ConfigEpoch = addrC, 2 })
	w.event(7000, "s1", "+switch-master", "m 10.0.0.2 6379 10.0.0.3 6379")
	if r := Check(w.in); r.Failovers != 2 {
		t.Fatalf("failovers %d, want 2", r.Failovers)
	}
}

func TestCheckR1Resources(t *testing.T) {
	w := failover()
	flat := func(p string, pid int, rss func(i int) int64) {
		for i := 0; i < 90; i++ { // one reading per second for 90 s
			w.in.Resources = append(w.in.Resources, ResourceSample{At: at(i * 1000), Process: p, PID: pid, RSSKB: rss(i), FDs: 20, Threads: 8})
		}
	}
	// Warm-up growth in the first half, flat afterwards: fine.
	flat("s1", 100, func(i int) int64 {
		if i < 40 {
			return int64(10000 + 500*i)
		}
		return 30000
	})
	mustNot(t, Check(w.in), "R1")
	// 100 KB/s all along (6 MB/min): a leak.
	flat("s2", 200, func(i int) int64 { return int64(10000 + 100*i) })
	r := Check(w.in)
	mustHave(t, r, "R1", "s2 pid 200: RSS KB grows")
	if len(violations(r, "R1")) != 1 {
		t.Fatalf("only s2 leaks: %+v", violations(r, "R1"))
	}
	// A series shorter than MinSpan is not judged.
	w.in.ResourceLimits.MinSpan = 2 * time.Minute
	mustNot(t, Check(w.in), "R1")
}

func TestReadResources(t *testing.T) {
	s, err := ReadResources(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSSKB <= 0 || s.FDs <= 0 || s.Threads <= 0 {
		t.Fatalf("own resources %+v", s)
	}
	if _, err := ReadResources(1 << 30); err == nil {
		t.Fatal("no error for a PID that does not exist")
	}
}

func TestResourceSampler(t *testing.T) {
	r := StartResourceSampler(context.Background(), time.Hour, func() map[string]int {
		return map[string]int{"self": os.Getpid(), "gone": 1 << 30}
	})
	out := r.Stop() // the first round runs before the sampler looks at Stop
	if len(out) != 1 || out[0].Process != "self" || out[0].PID != os.Getpid() {
		t.Fatalf("readings %+v, want one of self (the missing PID skipped)", out)
	}
}
