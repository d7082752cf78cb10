// Package workload is the fault lab's client side: Jepsen-style writers
// (list-append with unique ids, every operation recorded as
// invoke/ok/fail/unknown with the node that acknowledged it), a 50 ms role
// sampler (ROLE on every redis with a probe write on masters, the
// sentinels' answers, config epochs, TILT) with a subscription to every
// sentinel's events, the final read-back, and Check, a pure function that
// turns what was recorded into the figures and invariants of the
// reliability scorecard (docs/faultlab.md, docs/reliability.md).
//
// Everything here takes addresses as strings and a Dialer, so it runs the
// same on loopback (tests) and from inside a lab host's network namespace.
package workload
