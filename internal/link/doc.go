// Package link holds the outbound connections of a sentinel: the command
// and pub/sub connections to monitored masters and replicas, and the
// command connections to peer sentinels (sentinel.c instanceLink, reference
// §12 and §21).
//
// A [Manager] dials, writes and reads on its own goroutines and never
// blocks its caller: [Manager.Dial], [Manager.Send] and [Manager.Close]
// only queue work, and everything that happens on a connection comes back
// as an [Event] on the channel returned by [Manager.Events], which the
// runtime's single goroutine selects on.
//
// Per connection the Manager guarantees:
//
//   - exactly one of [Connected] or [Closed] follows a Dial; after
//     Connected, a Closed follows eventually unless the caller closes the
//     connection itself with Close (after which nothing more is reported,
//     apart from events that were already queued when Close was called);
//   - every Send is answered by exactly one [Reply] carrying its tag, in
//     the order of the Sends, unless the connection closes first: the
//     [Closed] event then lists the tags of every command still pending, so
//     the caller's pending-command counts stay right;
//   - pub/sub messages ("message" arrays on a pub/sub connection) arrive as
//     [Message] events and do not consume a tag;
//   - an error reply to a command sent with [CloseOnError] (the SUBSCRIBE of
//     a pub/sub connection) is delivered as its Reply and then closes the
//     connection, like hiredis does (tools rely on the instance showing
//     "disconnected" while SUBSCRIBE fails with -NOAUTH);
//   - replies are read with hard limits: a peer that sends garbage, a huge
//     bulk or too many bytes for one reply gets its connection closed with
//     an error wrapping [ErrProtocol] or [ErrReplyTooLarge]; memory held
//     for a reply never exceeds what the peer actually sent, capped by
//     Config.MaxReplyBytes.
//
// The link does not send any handshake: the core emits AUTH, CLIENT
// SETNAME and PING or SUBSCRIBE itself once it sees Connected.
//
// Who owns what about a connection. The core owns its meaning: which
// instance's link it belongs to, and the commands pending on it by tag
// (internal/core link.go, pending.go); when it learns of a Closed it
// settles those from its own table, so the runtime does not pass
// Closed.Pending on (the field is the Manager's proof, checked by this
// package's tests, that every Send was answered or cancelled exactly
// once). The Manager owns the socket, the write queue and the reply
// reader, keyed by ConnID (the core's ConnID). The runtime keeps one
// table between them (runtime.go connInfo: the core link and role of each
// ConnID, plus PING send times for the metrics) from the core's Connect
// until its Close or the Manager's Closed.
package link
