// Package sim is the deterministic simulator of gosentinel (FoundationDB /
// TigerBeetle VOPR style).
//
// One goroutine runs N sentinel cores ([core.Sentinel]) and M modelled Redis
// instances on a virtual millisecond clock. Everything that could be
// nondeterministic — network latency, connection resets, partitions,
// crashes, pauses, disk failures, clock jumps — is drawn from one seeded
// PCG generator, so a seed expands into printed [Options] and a failing
// seed replays byte for byte.
//
// A run has a fault phase followed by a healed phase without faults. Safety
// invariants S1–S9 are checked after every step against the true state the
// simulator knows; liveness properties L1–L4 are checked at the end of the
// healed phase. See docs/sim.md for what each check does exactly.
package sim
