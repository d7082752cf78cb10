package resp

import "errors"

// ErrProtocol matches every *ProtocolError with errors.Is.
var ErrProtocol = errors.New("protocol error")

// ProtocolError reports malformed or over-limit input. Its Error text is the
// message Redis sends before closing the connection, e.g.
// "Protocol error: invalid bulk length"; a server replies "-ERR " + Error().
type ProtocolError struct {
	// Msg is the part after "Protocol error: ".
	Msg string
}

// Error returns "Protocol error: " + Msg.
func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

// Is makes errors.Is(err, ErrProtocol) true.
func (e *ProtocolError) Is(target error) bool { return target == ErrProtocol }

func protoErr(msg string) error { return &ProtocolError{Msg: msg} }

// The protocol errors of the command reader, worded like Redis 7.0.
var (
	errInvalidMultibulkLen  = protoErr("invalid multibulk length")
	errUnauthMultibulkLen   = protoErr("unauthenticated multibulk length")
	errInvalidBulkLen       = protoErr("invalid bulk length")
	errUnauthBulkLen        = protoErr("unauthenticated bulk length")
	errTooBigInline         = protoErr("too big inline request")
	errTooBigMbulkCount     = protoErr("too big mbulk count string")
	errTooBigBulkCount      = protoErr("too big bulk count string")
	errUnbalancedQuotes     = protoErr("unbalanced quotes in request")
	errTooBigLine           = protoErr("too big reply line")
	errInvalidArrayLen      = protoErr("invalid aggregate length")
	errTooDeep              = protoErr("reply nested too deeply")
	errBadCRLF              = protoErr("expected CRLF after bulk payload")
	errInvalidInteger       = protoErr("invalid integer")
	errInvalidDouble        = protoErr("invalid double")
	errInvalidBoolean       = protoErr("invalid boolean")
	errInvalidBigNumber     = protoErr("invalid big number")
	errInvalidVerbatim      = protoErr("invalid verbatim string")
	errStreamedNotSupported = protoErr("streamed RESP3 types are not supported")
	errEmptyLine            = protoErr("empty reply line")
)

func errExpectedDollar(got byte) error {
	return protoErr("expected '$', got '" + string([]byte{got}) + "'")
}

func errUnknownType(got byte) error {
	return protoErr("unknown reply type '" + string([]byte{got}) + "'")
}
