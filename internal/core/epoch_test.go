package core

import (
	"strconv"
	"strings"
	"testing"
)

// TestEpochPoisoningVoteRequest: IS-MASTER-DOWN-BY-ADDR cannot move the
// current epoch to INT64_MAX, to a negative number, or further than
// MaxEpochAhead; at the bound it votes as sentinel.c does, and an election
// in the next epoch stays possible after every refusal.
func TestEpochPoisoningVoteRequest(t *testing.T) {
	ahead := strconv.FormatUint(MaxEpochAhead, 10)
	tests := []struct {
		epoch     string
		wantErr   string // prefix of the error reply, "" for a vote
		wantEpoch uint64 // current epoch afterwards
	}{
		{"9223372036854775807", "ERR epoch 9223372036854775807 is negative or above the maximum", 0},
		{"4611686018427387905", "ERR epoch 4611686018427387905 is negative or above the maximum", 0},
		{"-1", "ERR invalid epoch -1: epochs are never negative", 0},
		{"-9223372036854775808", "ERR invalid epoch", 0},
		{strconv.FormatUint(MaxEpochAhead+1, 10), "ERR epoch 1000001 is more than 1000000 ahead of the current epoch 0", 0},
		{ahead, "", MaxEpochAhead},
		{"7", "", 7},
	}
	for _, tt := range tests {
		t.Run(tt.epoch, func(t *testing.T) {
			s := newTestCore(t)
			seeMasterDown(s) // the vote gate (votegate.go) lets the request through
			resp, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", tt.epoch, peerB)
			if tt.wantErr != "" {
				if len(resp) != 1 || !strings.HasPrefix(renderValue(resp[0].Value), "-"+tt.wantErr) {
					t.Fatalf("reply %v, want -%s…", resp, tt.wantErr)
				}
				if len(effectsOf[Persist](effs)) != 0 || len(effectsOf[Emit](effs)) != 0 {
					t.Fatalf("refused request changed state: %v", effs)
				}
			} else {
				s.Step(11, PersistDone{Seq: persistOf(t, effs).Seq})
			}
			if s.CurrentEpoch() != tt.wantEpoch {
				t.Fatalf("current epoch %d, want %d", s.CurrentEpoch(), tt.wantEpoch)
			}
			// The next election is possible: a vote in current+1 is granted.
			next := strconv.FormatUint(s.CurrentEpoch()+1, 10)
			_, effs = request(s, 20, 2, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", next, peerC)
			got := effectsOf[Respond](s.Step(21, PersistDone{Seq: persistOf(t, effs).Seq}))
			if len(got) != 1 || renderValue(got[0].Value) != `[:1 "`+peerC+`" :`+next+`]` {
				t.Fatalf("vote in epoch %s after the refusal: %v", next, got)
			}
		})
	}
}

// TestEpochPoisoningHello: a hello whose epoch or config epoch is negative,
// above MaxEpoch or more than MaxEpochAhead ahead is ignored whole (no
// epoch, no config, no new sentinel); one at the bound is processed.
func TestEpochPoisoningHello(t *testing.T) {
	const peerD = "dddddddddddddddddddddddddddddddddddddddd"
	raw := func(epoch, cepoch string) string {
		return "127.0.0.1,26390," + peerD + "," + epoch + ",mym,127.0.0.1,6380," + cepoch
	}
	tests := []struct {
		name, payload string
		events        string
	}{
		{"epoch INT64_MAX", raw("9223372036854775807", "0"), ""},
		{"epoch -1", raw("-1", "0"), ""},
		{"epoch too far ahead", raw(strconv.FormatUint(MaxEpochAhead+1, 10), "0"), ""},
		{"config epoch INT64_MAX", raw("1", "9223372036854775807"), ""},
		{"config epoch -1", raw("1", "-1"), ""},
		{"at the bound", raw(strconv.FormatUint(MaxEpochAhead, 10), strconv.FormatUint(MaxEpochAhead, 10)),
			"+sentinel +new-epoch +config-update-from +switch-master +slave"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestCore(t)
			m := s.masters["mym"]
			// PUBLISH on our port: the unauthenticated path (a hello on a
			// master's channel is processed by the same code).
			_, effs := request(s, 100, 1, "PUBLISH", HelloChannel, tt.payload)
			effs = andSaved(s, 100, effs) // a followed switch is published once saved
			if got := emitTypes(effs); got != tt.events {
				t.Fatalf("events %q, want %q", got, tt.events)
			}
			if tt.events == "" {
				if s.CurrentEpoch() != 0 || len(m.m.sentinels) != 2 || m.addr.Port != 6379 {
					t.Fatalf("ignored hello changed state: epoch %d, %d sentinels, master port %d", s.CurrentEpoch(), len(m.m.sentinels), m.addr.Port)
				}
			}
		})
	}
}

// TestNoFailoverAtMaxEpoch: a hand-edited current-epoch at MaxEpoch never
// wraps: the failover is refused (once logged) instead of overflowing.
func TestNoFailoverAtMaxEpoch(t *testing.T) {
	s := newTestCore(t)
	s.currentEpoch = MaxEpoch
	m := s.masters["mym"]
	m.flags |= fODown
	for i := range 3 {
		s.now = Millis(100 + i)
		if s.startFailoverIfNeeded(m) {
			t.Fatal("failover started at MaxEpoch")
		}
	}
	if s.currentEpoch != MaxEpoch {
		t.Fatalf("epoch moved to %d", s.currentEpoch)
	}
}
