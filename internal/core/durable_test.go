package core

import (
	"errors"
	"testing"
)

// TestNonDurableRefusesVotes (durable.go, fault-lab F1): after a failed
// Persist, vote requests get leader "*" at once, without adopting the
// epoch or voting in memory; the failed change is retried after
// persistRetryDelay and once a retry succeeds the sentinel votes again.
func TestNonDurableRefusesVotes(t *testing.T) {
	s := newTestCore(t)
	_, effs := request(s, 10, 1, "SENTINEL", "flushconfig")
	p := persistOf(t, effs)
	done := s.Step(11, PersistDone{Seq: p.Seq, Err: errors.New("read-only file system")})
	if r := effectsOf[Respond](done); len(r) != 1 || r[0].Value.Kind != KindError {
		t.Fatalf("flushconfig after a failed save: %v", done)
	}
	if s.Durable() {
		t.Fatal("durable after a failed Persist")
	}

	seeMasterDown(s) // a vote we would grant if durable (votegate.go)
	resp, effs := request(s, 20, 2, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	if len(resp) != 1 || renderValue(resp[0].Value) != `[:1 "*" :0]` {
		t.Fatalf("vote while non-durable: %v", effs)
	}
	if got := emitTypes(effs); got != "" {
		t.Fatalf("events while refusing a vote: %q", got)
	}
	if s.CurrentEpoch() != 0 {
		t.Fatalf("epoch adopted while non-durable: %d", s.CurrentEpoch())
	}
	if v, _ := s.Master("mym"); v.Leader != "" || v.LeaderEpoch != 0 {
		t.Fatalf("voted in memory while non-durable: %s/%d", v.Leader, v.LeaderEpoch)
	}
	if r, _ := request(s, 21, 3, "SENTINEL", "failover", "mym"); len(r) != 1 || r[0].Value.Kind != KindError {
		t.Fatalf("SENTINEL FAILOVER while non-durable: %v", r)
	}

	// The retry: not before persistRetryDelay, then a fresh Persist.
	if ps := effectsOf[Persist](s.Step(11+persistRetryDelay-1, Tick{})); len(ps) != 0 {
		t.Fatalf("retried before the delay: %v", ps)
	}
	retry := persistOf(t, s.Step(11+persistRetryDelay, Tick{}))
	s.Step(11+persistRetryDelay+1, PersistDone{Seq: retry.Seq})
	if !s.Durable() {
		t.Fatal("still non-durable after a successful retry")
	}
	seeMasterDown(s) // the Ticks above re-evaluated S_DOWN
	resp, effs = request(s, 2000, 4, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	if len(resp) != 0 {
		t.Fatalf("vote reply before its Persist: %v", resp)
	}
	got := effectsOf[Respond](s.Step(2001, PersistDone{Seq: persistOf(t, effs).Seq}))
	if len(got) != 1 || renderValue(got[0].Value) != `[:1 "`+peerB+`" :5]` {
		t.Fatalf("vote once durable again: %v", got)
	}
}
