package workload

import (
	"context"
	"net"
	"strings"
)

type netDialer struct{ d net.Dialer }

func (n *netDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return n.d.DialContext(ctx, network, addr)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func splitHostPort(a string) (string, string, error) { return net.SplitHostPort(a) }
