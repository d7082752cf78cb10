// Package glob is the one glob matcher of gosentinel: Redis'
// stringmatchlen (util.c) byte for byte, including the two bounds that keep
// a hostile pattern from stalling the process.
//
// Every pattern that arrives from the network goes through [Match]:
// SENTINEL RESET and SENTINEL CONFIG GET (internal/core), PSUBSCRIBE,
// ACL channel patterns and COMMAND LIST FILTERBY PATTERN (internal/server).
//
// Semantics (those of Redis 7.0.15, checked against a real redis-server by
// TestMatchRealRedis):
//
//   - '*' matches any run of bytes, '?' any one byte, "[...]" a class with
//     ranges ("a-z", reversed ranges allowed), '^' negation and '\' escapes;
//     '\' outside a class makes the next byte literal. An unterminated class
//     ends at the end of the pattern.
//   - A non-empty pattern never matches the empty string: "*" against ""
//     is false, as in stringmatchlen (Redis' KEYS and SCAN special-case a
//     lone "*" before calling it; nothing in Sentinel does).
//   - nocase folds ASCII letters only (Redis calls tolower in the C locale);
//     an escaped byte inside a class is compared case-sensitively, as in
//     Redis.
//
// Bounds:
//
//   - Work: when the rest of the pattern after a '*' fails to match at every
//     position of the rest of the string, no earlier '*' can help either
//     (it could only move the rest further right), so the whole match fails
//     at once (CVE-2022-36021, Redis 7.0.9). This makes matching
//     O(len(pattern) × len(str)) instead of exponential.
//   - Depth: more than 1000 nested '*' never match (CVE-2024-31228, Redis
//     7.2.6 and the 7.0.15 build shipped by Debian), so a long pattern
//     cannot exhaust the stack.
//
// The package imports nothing, so internal/core may use it.
package glob
