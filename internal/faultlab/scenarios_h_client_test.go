package faultlab

import (
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// acksInput is h3 sampled every 50 ms (each ROLE answered 1 ms after it was
// sent): role:slave until switchMs, role:master from then on, and one
// acknowledged write of gs-plain on h3 invoked at opMs, acknowledged 2 ms
// later.
func acksInput(base time.Time, switchMs, opMs int, slaveAfter bool) *workload.Input {
	in := &workload.Input{}
	ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }
	for t := 0; t < 1000; t += 50 {
		role := "slave"
		if t >= switchMs && !slaveAfter {
			role = "master"
		}
		in.Samples = append(in.Samples, workload.Sample{At: ms(t), Done: ms(t + 1), Target: "h3", Kind: workload.KindRedis, Role: role})
	}
	in.Ops = append(in.Ops, workload.Op{Writer: "gs-plain", ID: "gs-plain-1", Invoke: ms(opMs), Complete: ms(opMs + 2),
		Result: workload.ResultOK, Node: "10.0.0.3:6379"})
	return in
}

func TestAcksOnReplica(t *testing.T) {
	base := time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	hostOf := func(string) string { return "h3" }
	// H6: h3 promoted at ~420 ms (between the samples of 400 and 450);
	// our client's write at 420–422 ms is on the new master. The sample
	// before both the invocation and the completion says slave; the
	// first one sent after the ack says master: not an ack on a replica.
	if n := acksOnReplica(acksInput(base, 450, 420, false), hostOf)["gs-plain"]; n != 0 {
		t.Fatalf("write on a replica promoted between two samples counted: %d", n)
	}
	// A node that stays a replica and acknowledges a write (a replica
	// with replica-read-only no, H4): counted.
	if n := acksOnReplica(acksInput(base, 450, 420, true), hostOf)["gs-plain"]; n != 1 {
		t.Fatalf("write acknowledged by a replica: counted %d, want 1", n)
	}
	// A ROLE sent before the write but answered after it was sent is no
	// evidence of the role at the invocation.
	in := acksInput(base, 450, 420, true)
	for i := range in.Samples {
		if in.Samples[i].At.Equal(base.Add(400 * time.Millisecond)) {
			in.Samples[i].Done = base.Add(430 * time.Millisecond)
		}
	}
	if n := acksOnReplica(in, hostOf)["gs-plain"]; n != 1 {
		t.Fatalf("the earlier answered sample should decide: counted %d, want 1", n)
	}
	in.Samples = in.Samples[:len(in.Samples):len(in.Samples)]
	for i := range in.Samples {
		if in.Samples[i].At.Before(base.Add(400 * time.Millisecond)) {
			in.Samples[i].Role = "master" // a demoted master: master until 400 ms
		}
	}
	if n := acksOnReplica(in, hostOf)["gs-plain"]; n != 0 {
		t.Fatalf("demotion answered after the invocation: counted %d, want 0", n)
	}
}
