// Package server is the client-facing port of gosentinel: a TCP server that
// speaks RESP2 and RESP3 (via internal/resp) and behaves like the command
// table of redis-sentinel 7.0.15.
//
// The server itself answers the connection-level commands (PING, HELLO,
// AUTH, CLIENT, COMMAND, ACL, (P)(UN)SUBSCRIBE, INFO, SHUTDOWN) and checks
// arity, authentication and ACL permissions for every command. The
// Sentinel-specific commands (SENTINEL subcommands, ROLE, PUBLISH) and the
// "# Sentinel" INFO section are forwarded to a [Backend], which the runtime
// implements. Events reach subscribed clients through [Server.Publish],
// which never blocks the caller.
package server
