package server

import (
	"context"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// Backend runs the Sentinel-specific part of the command surface. The
// runtime implements it; the server calls it from connection goroutines,
// possibly concurrently, so implementations must be safe for concurrent use.
type Backend interface {
	// Command runs SENTINEL <sub> ... (after the arity check of the
	// subcommand), ROLE, or PUBLISH <channel> <message> (after the ACL
	// channel check) and returns the reply. args[0] is the command name as
	// the client sent it; args are copies owned by the backend. ctx is
	// cancelled when the client disconnects or the server closes.
	Command(ctx context.Context, c *ClientInfo, args [][]byte) resp.Value
	// InfoSentinel returns the body of the "# Sentinel" INFO section: the
	// field lines ("sentinel_masters:1" ...), each terminated by "\r\n",
	// without the "# Sentinel" header.
	InfoSentinel() string
	// Shutdown is called by the SHUTDOWN command; the process is expected
	// to exit. The connection that sent SHUTDOWN is closed without a reply.
	Shutdown()
}

// AddrCache is an optional Backend fast path for the query every client
// of a deployment asks: a Backend that implements it answers SENTINEL
// GET-MASTER-ADDR-BY-NAME from a snapshot when it has one, and the server
// then neither copies the arguments nor describes the client for Command.
// The reply must be exactly the one Command would give; ok false sends the
// query to Command. name is only valid during the call.
type AddrCache interface {
	CachedMasterAddr(name []byte) (v resp.Value, ok bool)
}

// PipelinedBackend is an optional Backend that takes a command without
// waiting for its reply: the server then submits the forwarded commands
// a client pipelined (SENTINEL, ROLE, PUBLISH) one after the other, in
// order, and writes their replies in order once they are ready. A peer
// sentinel pipelines one IS-MASTER-DOWN-BY-ADDR per master on one
// connection; a vote is answered only once it is on disk, so waiting for
// each reply before reading the next request took one config save per
// master (fault lab B9L, docs/core.md decision 36). The returned wait
// blocks until the reply is ready and must be called at most once;
// commands are applied in the order of the CommandAsync calls.
type PipelinedBackend interface {
	CommandAsync(ctx context.Context, c *ClientInfo, args [][]byte) (wait func() resp.Value)
}

// ClientInfo describes the connection that sent a forwarded command.
type ClientInfo struct {
	// ID is the CLIENT ID of the connection.
	ID int64
	// Addr and LocalAddr are "ip:port" of the peer and of our socket.
	Addr, LocalAddr string
	// Name is the CLIENT SETNAME name ("" if none).
	Name string
	// User is the ACL user the connection is authenticated as.
	User string
	// Proto is 2 or 3.
	Proto int
}
