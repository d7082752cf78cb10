package sim

import (
	"reflect"
	"strings"
	"testing"
)

func TestOptionsFromSeed(t *testing.T) {
	fives := 0
	for seed := uint64(1); seed <= 300; seed++ {
		o := NewOptions(seed)
		if !reflect.DeepEqual(o, NewOptions(seed)) {
			t.Fatalf("seed %d: options differ between two expansions", seed)
		}
		if o.Sentinels != 3 && o.Sentinels != 5 {
			t.Fatalf("seed %d: %d sentinels", seed, o.Sentinels)
		}
		if o.Sentinels == 5 {
			fives++
		}
		if o.Quorum < 1 || o.Quorum > o.Sentinels {
			t.Fatalf("seed %d: quorum %d of %d", seed, o.Quorum, o.Sentinels)
		}
		if o.Replicas < 1 || o.Replicas > 3 || len(o.Priority) != o.Replicas || len(o.Announced) != o.Replicas {
			t.Fatalf("seed %d: replicas %d priorities %v", seed, o.Replicas, o.Priority)
		}
		if o.Timing.PingPeriod > o.DownAfter || o.LatencyMin > o.LatencyMax || o.TickMax > 100 {
			t.Fatalf("seed %d: inconsistent timings %+v", seed, o)
		}
		if o.end() <= o.healStart() || o.healStart() <= o.Warmup {
			t.Fatalf("seed %d: phases out of order", seed)
		}
		if s := o.String(); !strings.Contains(s, "options for seed") || !strings.Contains(s, "quorum") {
			t.Fatalf("seed %d: String() = %q", seed, s)
		}
	}
	if fives == 0 || fives == 300 {
		t.Fatalf("5-sentinel runs: %d of 300, want a mix", fives)
	}
	if reflect.DeepEqual(NewOptions(1), NewOptions(2)) {
		t.Fatal("seeds 1 and 2 expand into the same options")
	}
}
