package faultlab

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
)

// rawCommand sends one command on a fresh, unauthenticated connection from
// host `from` to addr and returns the first line of the reply ("-NOAUTH …",
// "+OK", "*3" …). F1 uses it: a go-redis client would send its own
// handshake commands first.
func rawCommand(ctx context.Context, from *netlab.Host, addr string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := from.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("dial %s: %w", addr, err)
	}
	defer c.Close()
	dl, _ := ctx.Deadline()
	_ = c.SetDeadline(dl)
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", fmt.Errorf("write to %s: %w", addr, err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("read from %s: %w", addr, err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
