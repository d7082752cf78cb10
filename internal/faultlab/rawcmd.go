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

// pipelineCommand sends the same command n times on one connection from
// host `from` (authenticated with pass when set) and reads the n replies,
// each expected on one line (integers, simple strings, errors); it returns
// how many were errors. F7 uses it to queue events faster than one round
// trip each.
func pipelineCommand(ctx context.Context, from *netlab.Host, addr, pass string, n int, timeout time.Duration, args ...string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := from.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, fmt.Errorf("dial %s: %w", addr, err)
	}
	defer c.Close()
	dl, _ := ctx.Deadline()
	_ = c.SetDeadline(dl)
	enc := func(b *strings.Builder, args []string) {
		fmt.Fprintf(b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	var b strings.Builder
	replies := n
	if pass != "" {
		enc(&b, []string{"AUTH", pass})
		replies++
	}
	for i := 0; i < n; i++ {
		enc(&b, args)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return 0, fmt.Errorf("write to %s: %w", addr, err)
	}
	r := bufio.NewReader(c)
	errs := 0
	for i := 0; i < replies; i++ {
		line, err := r.ReadString('\n')
		if err != nil {
			return errs, fmt.Errorf("reply %d of %d from %s: %w", i+1, replies, addr, err)
		}
		if strings.HasPrefix(line, "-") {
			errs++
		}
	}
	return errs, nil
}
