package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindingScenarios replays the scenarios of analysed violations from
// their saved files (testdata/seed*.json, written with --save-scenario), so
// they keep meaning the same scenario whatever happens to the seed
// expansion. Each must run clean and still tell its story (the trace lines
// that made it a finding), or the regression no longer tests anything.
func TestFindingScenarios(t *testing.T) {
	for _, tc := range []struct {
		file  string
		story []string
	}{
		// S6 false alarm: the core selected 10.1.0.3 on the INFO before
		// the operator raised its priority from 1 to 100.
		{"seed100012.json", []string{
			"fault: operator runs CONFIG SET replica-priority 100 on 10.1.0.3 (was 1)",
			"+selected-slave slave 10.1.0.3:6379",
		}},
		// F8: the only candidate is a rogue master last seen with
		// priority 0; the operator's REPLICAOF NO ONE at the heal.
		{"seed103207.json", []string{
			"heal: operator runs REPLICAOF NO ONE on 10.0.0.1",
			"+convert-to-slave slave 10.0.0.2:6379",
		}},
		// Round three: a dial retrying its SYN towards a node's old IP
		// landed on the node at its new IP (a model bug in name-moves).
		{"seed700741.json", []string{"moves from"}},
		{"seed703179.json", []string{"fault: redis-0-1.sim moves from 10.0.0.2 to 10.0.0.102"}},
		// E1: the old master, made a replica with priority 0 by the
		// operator, restarted as master after +switch-master; the core
		// kept the priority from its master object's INFO.
		{"seed500358.json", []string{
			"fault: operator runs CONFIG SET replica-priority 0 on 10.0.0.1 (was 1)",
			"+switch-master mymaster 10.0.0.1 6379 10.0.0.3 6379",
			"redis 10.0.0.1 restarts as master",
		}},
		// S7 false alarm: an attempt held behind its vote came from a
		// step before the +switch-master of the same millisecond, which
		// restarted pacing.
		{"seed812032.json", []string{
			"s2 -> event +switch-master mymaster 10.0.0.1 6379 10.0.0.2 6379",
			"s2 -> event +try-failover master mymaster 10.0.0.1 6379",
		}},
		// S6 false alarm: the replica ranking first had an INFO older than
		// §15's validity (the one asked at ODOWN still in flight).
		{"seed804588.json", []string{
			"+selected-slave slave 10.0.0.1:6379 10.0.0.1 6379 @ mymaster 10.0.0.2 6379",
		}},
		// D1 (the 700612 story, whose replay the vote gate changed): in
		// the tick that ends TILT at the heal, s1 starts a failover and
		// holds +sdown of the sentinel at 10.0.1.3 behind its vote; later
		// steps of the same millisecond deliver that sentinel's PONGs.
		// The held +sdown is judged by the step it happened in, not
		// against the PONGs processed after it ("only 0ms after its last
		// valid reply" before the step numbers). Since the retry is
		// staggered by rank (core decision 32) s1 no longer starts a
		// failover in that tick: the replay only checks that the seed
		// stays clean; TestLateSDownAfterReset keeps the rule.
		{"seed801153.json", []string{
			"15500 s1 -> event +sdown sentinel e9e773a93cb5ed0f5ed12197841c83b07b1aa7b7 10.0.1.3 26379",
		}},
		// S7: s2 voted for s0 in epoch 5 (an older request still passes
		// the per-master vote rule) while its own attempt of epoch 6 ran,
		// which then aborted with no-good-slave; the early retry (core
		// decision 27) must not follow a vote for another candidate.
		// Since decision 37 (failovers end one save earlier) s2 no
		// longer gets that older request before its abort, and retries
		// early, rightly: the replay checks that the seed stays clean
		// and still aborts; TestNoEarlyRetry ("voted for a peer since")
		// keeps the rule.
		{"seed1109464.json", []string{
			"s2 -> event -failover-abort-no-good-slave master mymaster 10.0.0.3 6379",
		}},
		// S6 false alarm: s1's clock jumped back 3914 ms; the operator set
		// priority 0 on 10.0.0.1 2.5 s before s1 selected it on an INFO
		// from before the change, 496 ms old by s1's clock.
		{"seed825951.json", []string{
			"fault: sentinel 1 clock jumps -3914ms",
			"fault: operator runs CONFIG SET replica-priority 0 on 10.0.0.1 (was 100)",
			"s1 -> event +selected-slave slave 10.0.0.1:6379",
		}},
		// D2: s4's -odown (an answer "not down" in the step that started
		// its failover) was held behind its vote; the +odown of a later
		// step (a third down answer) left at once, before it, so the
		// published flag said "not ODOWN" while s4 was ODOWN. The +odown
		// is now held behind the -odown (core decision 30).
		{"seed1208615.json", []string{
			"5317 s4 -> event +try-failover master mymaster 10.0.0.1 6379",
			"5328 s4 -> event -odown master mymaster 10.0.0.1 6379",
			"5328 s4 -> event +odown master mymaster 10.0.0.1 6379 #quorum 3/3",
		}},
		{"seed108731.json", []string{
			"heal: operator runs REPLICAOF NO ONE on 10.0.0.2",
			"+convert-to-slave slave 10.0.0.1:6379",
		}},
		// L1 (round seven): every sentinel was reset (SENTINEL RESET)
		// while the old master 10.0.0.1 was down; it restarted as a
		// master no sentinel knows. The operator reattaches it in the
		// healed phase (operator.go reattachForgotten).
		{"seed1500841.json", []string{
			"s2 -> event +reset-master master mymaster 10.0.0.4 6379",
			"redis 10.0.0.1 restarts as master",
			"liveness: operator runs REPLICAOF 10.0.0.4 6379 on 10.0.0.1, which every sentinel forgot (SENTINEL RESET)",
		}},
		// D2 false alarm (round seven, seed 1504994): answers released
		// with their peer objects by SENTINEL RESET still counted,
		// because the peers' links are shared with master2 and stay
		// open. Found again after docs/core.md decision 38 ("*" asks at
		// once), under which 1504994 rediscovers every peer before its
		// SDOWN: s2 answers s0 "down" at 4256 ms; s0's RESET at 5162
		// releases s2's object, but the link (shared with master2)
		// stays open; s0 rediscovers s1 only, is SDOWN at 6214, hears
		// s1 "down" at 6234 and rediscovers s2 at 7131. Quorum 3: the
		// checker must not count s2's old answer (D2 at 6350 ms
		// without forgetHeardOf at +reset-master).
		// O1 false alarm: a password rotation sent one SENTINEL SET per
		// master to s0 (stalled 5.7 s); the first reply cleared the
		// checker's single pending-operator flag, the operator's
		// SENTINEL RESET * went out, and the second SET's reply, read in
		// the RESET's step before it, cleared the flag again, so the
		// RESET's +reset-master looked unrequested.
		{"seed1670287.json", []string{
			"30049 fault: operator runs SENTINEL RESET * on sentinel 0",
			"30060 s0 answers [\"SENTINEL\" \"SET\" \"master2\" \"auth-pass\" \"pw-6\"]: +OK",
			"30060 s0 -> event +reset-master master master2 10.1.0.1 6379",
			"30060 s0 answers [\"SENTINEL\" \"RESET\" \"*\"]: :2",
		}},
		{"seed1750370.json", []string{
			"4256 s0 <- reply link=3 conn=3 tag=309 [:1 \"*\" :0]",
			"5162 s0 answers [\"SENTINEL\" \"RESET\" \"mymaster\"]: :1",
			"6214 s0 -> event +sdown master mymaster redis-0-0.sim 6379",
			"6234 s0 <- reply link=2 conn=4 tag=440 [:1 \"*\" :0]",
			"7131 s0 -> event +sentinel sentinel 55b846caafeaabbb7c0beb61b524bd92440af5a1 10.0.1.3 26379 @ mymaster redis-0-0.sim 6379",
		}},
		// L1 (round seven): every sentinel forgot the replicas while the
		// master they monitor ran as a replica (an operator's REPLICAOF):
		// no failover can be made; the operator's REPLICAOF NO ONE.
		{"seed1505755.json", []string{
			"liveness: operator runs REPLICAOF NO ONE on 10.0.0.4: every sentinel monitors it and, having forgotten the replicas (SENTINEL RESET), knows none",
		}},
		// F13 (S2): s0, reset while stalled and cut off, heard no peer
		// for 14.9 s (TILT, partitions), crashed and restarted from a
		// file saved after the RESET; its own vote elected it at 19549
		// ms (quorum 1 of 3). The floor is saved and its window does not
		// run while the sentinel cannot hear its peers (core decision 33).
		{"seed1507811.json", []string{
			"4655 s0 -> log SENTINEL RESET of mymaster forgot 2 sentinels",
			"15745 sentinel 0 crashes",
			"18059 s0 -> log Voter floor of mymaster loaded from the config: its elections count 3 voters",
			"19549 s0 -> event +try-failover master mymaster 10.0.0.1 6379",
		}},
		// F13 (S2): s1, reset at 16312 ms, crashed at 18893 and restarted
		// from a file saved after the RESET; its own vote elected it at
		// 23732 ms, inside the floor's window. Since docs/core.md
		// decision 38 ("*" asks leave at once) its attempt comes at
		// 23709 ms; with the floor not loaded from the config it is
		// still elected alone there (S2).
		{"seed1601788.json", []string{
			"16312 s1 -> log SENTINEL RESET of mymaster forgot 2 sentinels",
			"18893 sentinel 1 crashes",
			"22477 s1 -> log Voter floor of mymaster loaded from the config: its elections count 3 voters",
			"23709 s1 -> event +try-failover master mymaster 10.0.0.1 6379",
		}},
		// L1 (round eight): s0 and s1 were reset (SENTINEL RESET) and
		// forgot 10.0.0.4, which an operator then chained under 10.0.0.2;
		// the misconfigured s2 monitors 10.0.0.2 as its master at config
		// epoch 0 and keeps 10.0.0.4 as its replica, so nobody moves it.
		// The operator reattaches it in the healed phase.
		{"seed1610767.json", []string{
			"20217 s0 -> event +reset-master master mymaster 10.0.0.1 6379",
			"28828 redis 10.0.0.4 replicaof 10.0.0.2:6379",
			"liveness: operator runs REPLICAOF 10.0.0.1 6379 on 10.0.0.4, which every sentinel but the misconfigured one forgot (SENTINEL RESET)",
		}},
		// D1 false alarm (round eight): SENTINEL RESET master2 released
		// s2's object of s0 under master2, which had sent the PING on
		// the link it shared with s0's object under mymaster; the PONG
		// (s0 stalled, the simulator answers PING) was discarded with
		// it (reference §21), as the core does, so +sdown of s0 @
		// mymaster counted from the reply before. (The RESET moved
		// from 12452 to 12392 ms with docs/core.md decision 37, which
		// made s2 reconnect 55 ms earlier: it again lands between the
		// PING and its PONG.)
		{"seed1615039.json", []string{
			"12392 s2 -> event +reset-master master master2 10.1.0.3 6379",
			"12401 s2 <- reply link=2 conn=51 tag=974 +PONG",
			"12866 s2 -> event +sdown sentinel 45deb497057be446cdc55f4767de4e91847b9abc 10.0.1.1 26379 @ mymaster 10.0.0.1 6379",
		}},
		// L1 (round eight, core, F14; seed 1615703, found again after
		// docs/core.md decision 38, under which 1615703 takes another
		// course): s0 (rank 0) is reset (SENTINEL RESET) at 9307 ms
		// while it monitors 10.0.0.2, which an operator then makes a
		// replica of 10.0.0.1 listing no replicas, so s0 knows none.
		// It leads after the heal and aborts with no good slave; s2,
		// which knows the replicas, must get the retry (stagger.go
		// cannotSelect): with a known replica required for the yield,
		// s0 leads and aborts every ~9 s and nothing converges (L1).
		{"seed1717659.json", []string{
			"9307 s0 -> event +reset-master master mymaster 10.0.0.2 6379",
			"10079 redis 10.0.0.2 replicaof 10.0.0.1:6379",
			"16991 s0 -> event -failover-abort-no-good-slave master mymaster 10.0.0.2 6379",
			"27045 s2 -> event +selected-slave slave 10.0.0.1:6379 10.0.0.1 6379 @ mymaster 10.0.0.2 6379",
		}},
		// docs/core.md decision 35 (foreign hellos; 1615703 pinned it
		// too until decision 38): s0 and s2 were reset after the
		// failover to 10.0.0.2 and forgot s1 and the old master
		// 10.0.0.1; s1, which missed the failover, PUBLISHes its hello
		// naming 10.0.0.1 to s0 directly. s0 must take it (a direct
		// hello is not checked), learn s1 and send it its own hellos,
		// so s1 follows; checking direct hellos too, nobody ever tells
		// s1 and it stays on 10.0.0.1 (L1).
		{"seed1702083.json", []string{
			"7969 s0 -> event +reset-master master mymaster 10.0.0.2 6379",
			"17058 s0 <- request id=31 from=s1 [\"PUBLISH\" \"__sentinel__:hello\" \"10.0.9.2,30002,e114ddd5dea10bdee43aceb04baa4a5cf4cba6bf,1,mymaster,10.0.0.1,6379,0\"]",
			"17058 s0 -> event +sentinel sentinel e114ddd5dea10bdee43aceb04baa4a5cf4cba6bf 10.0.9.2 30002 @ mymaster 10.0.0.2 6379",
			"17106 s1 -> event +switch-master mymaster 10.0.0.1 6379 10.0.0.2 6379",
		}},
		// F15: s2, reset with quorum 1 of 3, crashed while config writes
		// failed after a clock jump had moved its floor's expiry; with an
		// absolute expiry it restarted without a floor and was elected
		// alone. The floor now keeps the part of its window left.
		{"seed1652531.json", []string{
			"10243 fault: sentinel 2 config writes fail for 1520ms",
			"13472 s2 -> log Voter floor of mymaster loaded from the config",
		}},
		// F15: a +3.8 s clock jump with 2.9 s of s2's floor left: the
		// tick of the jump dropped the floor before moving it by the
		// jump; now the pause is applied first.
		{"seed1654493.json", []string{
			"14609 fault: sentinel 2 clock jumps +3770ms",
			"14626 s2 -> event +tilt #tilt mode entered",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			o, err := LoadScenario(b)
			if err != nil {
				t.Fatal(err)
			}
			r := RunOptions(o, Config{Trace: true})
			for _, v := range r.Violations {
				t.Errorf("%s", v)
			}
			for _, s := range tc.story {
				if !strings.Contains(r.Trace, s) {
					t.Errorf("trace lacks %q: the scenario no longer tells its story", s)
				}
			}
		})
	}
}
