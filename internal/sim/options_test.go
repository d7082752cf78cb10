package sim

import (
	"errors"
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
		if err := o.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
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

func TestValidateRejectsBrokenOptions(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(o *Options)
	}{
		{"no sentinel", func(o *Options) { o.Sentinels = 0 }},
		{"zero quorum", func(o *Options) { o.Quorum = 0 }},
		{"priorities missing", func(o *Options) { o.Priority = nil }},
		{"latency inverted", func(o *Options) { o.LatencyMin, o.LatencyMax = 10, 5 }},
		{"no tick", func(o *Options) { o.TickMin = 0 }},
		{"no down-after", func(o *Options) { o.DownAfter = 0 }},
		{"no ping period", func(o *Options) { o.Timing.PingPeriod = 0 }},
		{"no heal phase", func(o *Options) { o.HealPhase = 0 }},
		{"unknown info denial", func(o *Options) { o.InfoDenied = InfoDeniedBest + 1 }},
		{"negative info denial", func(o *Options) { o.InfoDenied, o.InfoDeniedFor = InfoDeniedAll, -1 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions(3)
			tc.mutate(&o)
			if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("Validate() = %v, want ErrInvalidOptions", err)
			}
			r := RunOptions(o, Config{})
			if len(r.Violations) != 1 || r.Violations[0].Invariant != "OPTIONS" {
				t.Fatalf("RunOptions on broken options: %+v", r.Violations)
			}
		})
	}
}
