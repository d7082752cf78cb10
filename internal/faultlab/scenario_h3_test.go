package faultlab

import (
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// TestH3JudgesOurClient: H3's criterion judges our client's writes while
// every sentinel is down; a go-redis write that failed because go-redis
// asks a sentinel for each new pool connection is counted apart and does
// not fail the run (the lab's 2026-12-03 run failed H3 on gosentinel 3/3
// on two such go-redis writes each, our client 0).
func TestH3JudgesOurClient(t *testing.T) {
	s, ok := Lookup("H3")
	if !ok {
		t.Fatal("no scenario H3")
	}
	t0 := time.Unix(1000, 0)
	in := &workload.Input{FaultAt: t0, HealAt: t0.Add(15 * time.Second)}
	at := t0.Add(time.Second)
	in.Ops = []workload.Op{
		{Writer: "gs-plain", Invoke: at, Complete: at, Result: workload.ResultOK, Replicas: -1},
		{Writer: "gr-plain", Invoke: at, Complete: at.Add(9 * time.Second), Result: workload.ResultFail, Err: "context deadline exceeded", Replicas: -1},
	}
	judge := func() (bool, map[string]float64) {
		r := &RunResult{Extra: map[string]float64{}, ByWriter: map[string]WriterFigures{
			"gs-plain": {Client: string(workload.ClientGosentinel)},
			"gr-plain": {Client: string(workload.ClientGoRedis)},
		}}
		s.Post(r, in, nil)
		for _, c := range s.Criteria {
			if c.Name == "no write error of our client while the sentinels are down" {
				pass, _ := c.Check(r)
				return pass, r.Extra
			}
		}
		t.Fatal("H3 has no criterion on our client's write errors")
		return false, nil
	}
	pass, extra := judge()
	if !pass || extra["errors_during_outage"] != 0 || extra["errors_during_outage_go_redis"] != 1 {
		t.Fatalf("go-redis's failed write: pass %v, extra %v; want pass, 0 of ours, 1 of go-redis", pass, extra)
	}
	in.Ops = append(in.Ops, workload.Op{Writer: "gs-plain", Invoke: at, Complete: at, Result: workload.ResultFail, Err: "no master", Replicas: -1})
	if pass, extra = judge(); pass || extra["errors_during_outage"] != 1 {
		t.Fatalf("our client's failed write: pass %v, extra %v; want a failure", pass, extra)
	}
}
