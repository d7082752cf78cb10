package client

import (
	"context"
	"errors"

	"fmt"
	"github.com/redis/go-redis/v9/auth"
	"net"
	"strings"
	"time"
)

// Roles as reported by ROLE and INFO replication.
const (
	roleMaster = "master"
	roleSlave  = "slave"
)

// dialVerify opens a data connection to addr, authenticates and checks that
// the instance reports role want with ROLE (falling back to INFO
// replication when ROLE is refused, e.g. renamed or not permitted). On
// success the connection is returned with its deadline cleared and nothing
// buffered, ready to be handed to go-redis.
func (r *resolver) dialVerify(ctx context.Context, addr, want string) (net.Conn, error) {
	deadline := deadlineFor(ctx, r.opt.DialTimeout)
	c, err := dialWith(ctx, r.opt.Dialer, r.opt.TLSConfig, addr, deadline)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	user, pass, err := r.dataCredentials(ctx)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("credentials for %s: %w", addr, err)
	}
	// A node that accepts but does not answer (SIGSTOP: the kernel
	// completes the handshake) would hold the probe until the deadline;
	// the probe ends when ctx does or a hint arrives (the master moved).
	hctx := r.hintContext()
	stopCut := context.AfterFunc(ctx, func() { c.Close() })
	stopHint := context.AfterFunc(hctx, func() { c.Close() })
	role, err := probeRole(c, deadline, user, pass)
	cutByCtx, cutByHint := !stopCut(), !stopHint()
	if err == nil && (cutByCtx || cutByHint) {
		err = errors.New("probe cut")
	}
	if err != nil {
		c.Close()
		switch {
		case cutByHint:
			err = fmt.Errorf("%w (a sentinel event arrived during the probe)", err)
		case cutByCtx:
			err = fmt.Errorf("%w (%v)", err, ctx.Err())
		}
		return nil, fmt.Errorf("verify role of %s: %w", addr, err)
	}
	if role != want {
		c.Close()
		r.stats.roleMismatches.Add(1)
		return nil, &RoleError{Addr: addr, Want: want, Got: role}
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("clear deadline on %s: %w", addr, err)
	}
	return c, nil
}

// probeRole authenticates on c and returns the instance role.
func probeRole(c net.Conn, deadline time.Time, user, pass string) (string, error) {
	rc := newRespConn(c)
	cmds := [][]string{{"ROLE"}}
	auth := authCmd(user, pass)
	if auth != nil {
		cmds = append([][]string{auth}, cmds...)
	}
	rs, err := rc.do(deadline, cmds...)
	if err != nil {
		return "", err
	}
	if auth != nil {
		if err := rs[0].err(); err != nil {
			return "", fmt.Errorf("%w: %w", ErrAuth, err)
		}
		rs = rs[1:]
	}
	if rs[0].typ == '-' && strings.HasPrefix(rs[0].str, "NOAUTH") {
		return "", fmt.Errorf("%w: %w", ErrAuth, rs[0].err())
	}
	var role string
	if rs[0].typ == '*' && len(rs[0].arr) > 0 && rs[0].arr[0].typ != '-' {
		role = rs[0].arr[0].str
	} else {
		// ROLE unavailable (renamed, ACL, very old server): INFO replication.
		ri, err := rc.do(deadline, []string{"INFO", "replication"})
		if err != nil {
			return "", err
		}
		if err := ri[0].err(); err != nil {
			return "", fmt.Errorf("ROLE refused (%v) and INFO replication refused: %w", rs[0].err(), err)
		}
		role = parseInfoRole(ri[0].str)
		if role == "" {
			return "", fmt.Errorf("%w: no role field in INFO replication", errProtocol)
		}
	}
	if rc.br.Buffered() != 0 {
		return "", fmt.Errorf("%w: unexpected extra bytes after ROLE", errProtocol)
	}
	return role, nil
}

// parseInfoRole extracts "role:<x>" from an INFO reply.
func parseInfoRole(info string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "role:"); ok {
			return v
		}
	}
	return ""
}

// dataCredentials returns the data-node credentials with go-redis's
// precedence: StreamingCredentialsProvider, CredentialsProviderContext,
// CredentialsProvider, then Username/Password.
func (r *resolver) dataCredentials(ctx context.Context) (string, string, error) {
	o := &r.opt
	switch {
	case o.StreamingCredentialsProvider != nil:
		creds, unsub, err := o.StreamingCredentialsProvider.Subscribe(noopListener{})
		if err != nil {
			return "", "", err
		}
		if unsub != nil {
			_ = unsub()
		}
		u, p := creds.BasicAuth()
		return u, p, nil
	case o.CredentialsProviderContext != nil:
		return o.CredentialsProviderContext(ctx)
	case o.CredentialsProvider != nil:
		u, p := o.CredentialsProvider()
		return u, p, nil
	}
	return o.Username, o.Password, nil
}

// noopListener takes the current credentials of a streaming provider for
// the ROLE probe, which needs no updates.
type noopListener struct{}

func (noopListener) OnNext(auth.Credentials) {}
func (noopListener) OnError(error)           {}
