// Package resp reads and writes the Redis serialization protocol, versions 2
// and 3, as spoken by redis-server and redis-sentinel 7.0.
//
// The server side reads commands with [Reader.ReadCommand], which accepts
// multibulk and inline requests (like Redis' processMultibulkBuffer and
// processInlineBuffer) and enforces hard limits on untrusted input. The
// client side reads arbitrary replies with [Reader.ReadValue]. Replies are
// rendered for a given protocol version with [AppendValue] or a [Writer].
//
// Nothing in this package allocates a size chosen by the peer before the
// corresponding bytes have arrived: buffers grow as data is received.
package resp
