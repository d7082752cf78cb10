// Package hostile measures how much hostile client and peer loads (issue
// 15: backtracking glob patterns, epoch poisoning, hostile PSUBSCRIBE,
// slow subscribers, large events, idle connections, reconnect storms,
// malformed protocol input and fake peers) delay another client's PING and
// SENTINEL GET-MASTER-ADDR-BY-NAME and failure detection, for any sentinel
// binary. bench/cmd/hostilelat runs it side by side for redis-sentinel and
// gosentinel; docs/bench.md and docs/security.md describe the figures.
package hostile
