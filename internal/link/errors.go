package link

import "errors"

// Errors carried by [Closed] events, matched with errors.Is.
var (
	// ErrDial wraps a failed or timed-out dial (including the TLS handshake).
	ErrDial = errors.New("link: dial failed")
	// ErrConnLost wraps a read or write failure, including EOF from the peer.
	ErrConnLost = errors.New("link: connection lost")
	// ErrProtocol wraps a reply that is not valid RESP.
	ErrProtocol = errors.New("link: protocol error")
	// ErrReplyTooLarge reports a reply larger than Config.MaxReplyBytes.
	ErrReplyTooLarge = errors.New("link: reply too large")
	// ErrUnexpectedReply reports a reply that no pending command waits for.
	ErrUnexpectedReply = errors.New("link: reply without a pending command")
	// ErrQueueFull reports that more than Config.MaxPending commands were
	// waiting on one connection; the connection is closed.
	ErrQueueFull = errors.New("link: too many pending commands")
	// ErrSubscribeFailed reports an error reply to a command sent with
	// CloseOnError (the pub/sub SUBSCRIBE).
	ErrSubscribeFailed = errors.New("link: subscribe failed")
	// ErrShutdown is returned when the Manager has been shut down.
	ErrShutdown = errors.New("link: manager shut down")
)
