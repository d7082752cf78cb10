package faultlab

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// probeTimeout bounds one F5 probe connection: dial, handshake and the
// wait for a reply. A server that neither answers nor closes within it
// has refused the command (the outcome says "timeout").
const probeTimeout = 2 * time.Second

// probeOutcome is what a misbehaving peer saw of one connection to a TLS
// port (F5): the TLS handshake's error (TLS probes), the first line of a
// RESP reply if one came (the command was served: a failure), otherwise
// the bytes that came instead (a TLS alert to a plaintext client) and the
// error that ended the read (EOF, reset, timeout, a TLS alert).
type probeOutcome struct {
	Handshake error
	Reply     string
	Raw       []byte
	Err       error
}

// Answered reports whether the server answered the command (a RESP reply).
func (o probeOutcome) Answered() bool { return o.Reply != "" }

// String describes the outcome for the run's notes.
func (o probeOutcome) String() string {
	switch {
	case o.Handshake != nil:
		return "handshake refused: " + o.Handshake.Error()
	case o.Answered():
		return fmt.Sprintf("answered %q", o.Reply)
	}
	s := "no reply"
	if len(o.Raw) > 0 {
		s += fmt.Sprintf(", %d non-RESP bytes % x", len(o.Raw), o.Raw)
	}
	return s + ", then " + describeReadErr(o.Err)
}

// describeReadErr names how a read ended: EOF, reset, timeout or the error.
func describeReadErr(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return "nothing"
	case errors.Is(err, io.EOF):
		return "EOF (closed)"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout (held open)"
	case strings.Contains(err.Error(), "connection reset"):
		return "connection reset"
	}
	return err.Error()
}

// encodeCommands is args as RESP arrays of bulk strings, one after another.
func encodeCommands(cmds ...[]string) []byte {
	var b strings.Builder
	for _, args := range cmds {
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	return []byte(b.String())
}

// isRESP reports whether b starts like a RESP2/RESP3 reply line.
func isRESP(b []byte) bool {
	return len(b) > 0 && strings.IndexByte("+-:$*_#,(!=%~>|", b[0]) >= 0 && strings.Contains(string(b), "\r\n")
}

// probeDial dials addr for a probe, the connection's deadline that of ctx.
func probeDial(ctx context.Context, dial workload.Dialer, addr string) (net.Conn, error) {
	c, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	dl, _ := ctx.Deadline()
	_ = c.SetDeadline(dl)
	return c, nil
}

// plainProbe sends cmds in plaintext to addr (a TLS port) and reports
// what came back within probeTimeout.
func plainProbe(ctx context.Context, dial workload.Dialer, addr string, cmds ...[]string) (probeOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	c, err := probeDial(ctx, dial, addr)
	if err != nil {
		return probeOutcome{}, err
	}
	defer c.Close()
	var o probeOutcome
	if _, err := c.Write(encodeCommands(cmds...)); err != nil {
		o.Err = err
		return o, nil
	}
	buf := make([]byte, 256)
	for {
		n, err := c.Read(buf[len(o.Raw):])
		o.Raw = buf[:len(o.Raw)+n]
		if isRESP(o.Raw) {
			o.Reply, _, _ = strings.Cut(string(o.Raw), "\r\n")
			o.Raw = nil
			return o, nil
		}
		if err != nil || len(o.Raw) == len(buf) {
			o.Err = err
			return o, nil
		}
	}
}

// tlsProbe connects to addr as a TLS client of cfg (a bad certificate),
// sends cmds if the handshake completes on its side and reports what
// came back within probeTimeout. With TLS 1.3 the client's handshake
// completes before the server has checked the client certificate: the
// refusal then arrives as an alert on the first read.
func tlsProbe(ctx context.Context, dial workload.Dialer, addr string, cfg *tls.Config, cmds ...[]string) (probeOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	c, err := probeDial(ctx, dial, addr)
	if err != nil {
		return probeOutcome{}, err
	}
	defer c.Close()
	tc := tls.Client(c, cfg)
	var o probeOutcome
	if err := tc.HandshakeContext(ctx); err != nil {
		o.Handshake = err
		return o, nil
	}
	if _, err := tc.Write(encodeCommands(cmds...)); err != nil {
		o.Err = err
		return o, nil
	}
	line, err := bufio.NewReader(tc).ReadString('\n')
	if isRESP([]byte(line)) {
		o.Reply = strings.TrimRight(line, "\r\n")
		return o, nil
	}
	o.Raw, o.Err = []byte(line), err
	return o, nil
}
