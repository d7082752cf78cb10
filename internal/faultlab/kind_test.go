package faultlab

import (
	"strings"
	"testing"
)

func TestParseKindsValkey(t *testing.T) {
	ks, err := ParseKinds("valkey,go-valkey,mixed-vk-go1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 3 || ks[0] != KindValkey || ks[1] != KindGoValkey || ks[2] != KindMixedVkGo1 {
		t.Fatalf("kinds %v", ks)
	}
}

func TestValkeyBinaries(t *testing.T) {
	for _, c := range []struct {
		kind          Kind
		redis, s1, s2 string
	}{
		{KindRedis, "redis-server", "redis-sentinel", "redis-sentinel"},
		{KindValkey, "valkey-server", "valkey-sentinel", "valkey-sentinel"},
		{KindGoValkey, "valkey-server", "GO", "GO"},
		{KindMixedVkGo1, "valkey-server", "GO", "valkey-sentinel"},
	} {
		top := &Topology{Kind: c.kind, GoBin: "GO", SentinelHosts: []string{"h1", "h2", "h3"}}
		if got := top.RedisBin(); got != c.redis {
			t.Errorf("%s: RedisBin %s, want %s", c.kind, got, c.redis)
		}
		if got := top.SentinelBin("h1"); got != c.s1 {
			t.Errorf("%s: SentinelBin(h1) %s, want %s", c.kind, got, c.s1)
		}
		if got := top.SentinelBin("h2"); got != c.s2 {
			t.Errorf("%s: SentinelBin(h2) %s, want %s", c.kind, got, c.s2)
		}
	}
}

func TestRegressionsAgainstValkeyBaseline(t *testing.T) {
	regs := Regressions([]RunResult{
		{Scenario: "A3", Kind: KindRedis},
		{Scenario: "A3", Kind: KindValkey, Failed: []string{"L1 <= 10 s after heal: 10.2 s"}},
		{Scenario: "A3", Kind: KindGoValkey, Failed: []string{"L1 <= 10 s after heal: 10.3 s"}},
		{Scenario: "A1", Kind: KindValkey},
		{Scenario: "A1", Kind: KindMixedVkGo1, Failed: []string{"RTO_switch <= 10 s: 12 s"}},
	})
	if len(regs) != 1 || !strings.Contains(regs[0], "A1 on mixed-vk-go1") {
		t.Fatalf("regressions %q", regs)
	}
}

func TestScorecardValkeyRows(t *testing.T) {
	all := map[string]map[Kind][]RunResult{"A1": {
		KindValkey:     {{Scenario: "A1", Kind: KindValkey, Pass: true}},
		KindGoValkey:   {{Scenario: "A1", Kind: KindGoValkey, Pass: true}},
		KindMixedVkGo1: {{Scenario: "A1", Kind: KindMixedVkGo1, Failed: []string{"x: y"}}},
	}}
	sc := Scorecard(all)
	for _, want := range []string{"| A1 valkey | SIGKILL master | **pass** 1/1 | **pass** 1/1 |", "| A1 valkey mixed | SIGKILL master | **pass** 1/1 | **FAIL** 0/1 |", "A1 on mixed-vk-go1, run 0"} {
		if !strings.Contains(sc, want) {
			t.Errorf("scorecard lacks %q", want)
		}
	}
}
