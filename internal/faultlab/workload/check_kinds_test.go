package workload

import "testing"

// W2: a transaction whose writes are in the final read in part.
func TestCheckTornTx(t *testing.T) {
	w := failover()
	w.op("m1", "m1-1", 500, ResultOK, addrA, true)
	w.op("m1", "m1-2", 500, ResultOK, addrA, true)
	w.op("m1", "m1-3", 800, ResultUnknown, "", true)
	w.op("m1", "m1-4", 800, ResultUnknown, "", false)
	w.op("m1", "m1-5", 900, ResultUnknown, "", false)
	w.op("m1", "m1-6", 900, ResultUnknown, "", false)
	for i := range w.in.Ops {
		w.in.Ops[i].Tx = map[int]string{0: "m1-1", 1: "m1-1", 2: "m1-3", 3: "m1-3", 4: "m1-5", 5: "m1-5"}[i]
	}
	r := Check(w.in)
	if r.TornTx != 1 {
		t.Fatalf("torn %d, want 1 (m1-3)", r.TornTx)
	}
	mustHave(t, r, "W2", "m1-3")
	w.in.Final["log:0"] = append(w.in.Final["log:0"], "m1-4")
	r = Check(w.in)
	mustNot(t, r, "W2")
}

// Queue operations are judged by CheckQueue, not as list appends.
func TestCheckQueue(t *testing.T) {
	enq := func(id string, res Result, sent int) Op {
		return Op{Writer: "q", ID: id, Kind: KindEnqueue, Result: res, Sent: sent, Invoke: at(100), Complete: at(101)}
	}
	deq := func(id string, res Result) Op {
		return Op{Writer: "q", ID: id, Kind: KindDequeue, Result: res, Invoke: at(200), Complete: at(201)}
	}
	ops := []Op{
		enq("q-1", ResultOK, 1), deq("q-1", ResultOK), // delivered
		enq("q-2", ResultOK, 1),                         // remaining
		enq("q-3", ResultOK, 1), deq("", ResultUnknown), // lost, accounted for by the unknown pop
		enq("q-4", ResultOK, 2), deq("q-4", ResultOK), // resent: delivered and remaining
		enq("q-5", ResultOK, 1), deq("q-5", ResultOK), deq("q-5", ResultOK), // redelivered
		deq("ghost-1", ResultOK), // phantom
		enq("q-6", ResultFail, 0),
	}
	q := CheckQueue(ops, map[string][]string{"queue:q:0": {"q-2", "q-4"}})
	want := QueueReport{Enqueued: 6, EnqueuedOK: 5, Delivered: 5, Remaining: 2, Lost: 1, UnknownPops: 1, DupResent: 1, DupRedelivered: 1, Phantom: 1}
	if q != want {
		t.Fatalf("got %+v\nwant %+v", q, want)
	}
	// Check ignores them: no lost ack, no phantom from the queue ids.
	w := failover()
	w.in.Ops = append(w.in.Ops, ops...)
	if r := Check(w.in); r.Writes != 0 || r.LostAck != 0 || r.Phantom != 0 {
		t.Fatalf("Check judged queue ops: writes %d lost %d phantom %d", r.Writes, r.LostAck, r.Phantom)
	}
}
