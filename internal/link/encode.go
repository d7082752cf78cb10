package link

import "github.com/gosentinel/gosentinel/internal/resp"

// appendCommand appends args as a RESP multibulk command, encoded by
// internal/resp (the same writer the server replies with).
func appendCommand(b []byte, args []string) []byte {
	b = resp.AppendArrayLen(b, len(args))
	for _, a := range args {
		b = resp.AppendBulkString(b, a)
	}
	return b
}
