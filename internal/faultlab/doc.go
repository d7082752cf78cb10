// Package faultlab is the fault lab's integration layer: it builds
// topologies of real redis-server and sentinel processes (gosentinel,
// Debian's redis-sentinel 7.0.15, or a mix) on separate network hosts
// (package netlab), runs named, seeded scenarios from the reliability
// scorecard against them while the workload writes and samples (package
// workload), and turns the recorded runs into JSON results and the
// Markdown scorecard docs/reliability.md. See docs/faultlab.md.
package faultlab
