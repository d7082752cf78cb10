// Package conformance runs the same topology twice — once under the real
// redis-sentinel 7.0.15 and once under gosentinel (built as a binary named
// redis-sentinel) — drives both with identical raw RESP2/RESP3 command
// sequences and compares the replies, events, config files and process
// behaviour after normalising only what legitimately differs (run ids,
// ports, ages, client ids).
//
// The package holds tests only; see docs/conformance.md for what is
// compared and FINDINGS.md for the known differences.
package conformance
