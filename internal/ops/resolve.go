package ops

import (
	"context"
	"fmt"
	"net"
	"strings"
)

// ResolveMaster asks the sentinels in order for the master's address and
// returns the first answer as ip:port.
func ResolveMaster(ctx context.Context, o *ConnOptions, name string) (string, error) {
	addrs, err := o.sentinels()
	if err != nil {
		return "", err
	}
	var errs []string
	for _, a := range addrs {
		c, err := o.SentinelClient(a)
		if err != nil {
			return "", err
		}
		v, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
		c.Close()
		if err == nil && len(v) == 2 {
			return net.JoinHostPort(v[0], v[1]), nil
		}
		if err == nil {
			err = fmt.Errorf("unexpected reply %q", v)
		}
		errs = append(errs, a+": "+err.Error())
	}
	return "", fmt.Errorf("resolve %s: %w (%s)", name, ErrNoMaster, strings.Join(errs, "; "))
}

// SentinelFailover sends SENTINEL FAILOVER (with opts, e.g. COORDINATED)
// to the sentinels in order until one accepts, and returns the address of
// the one that did.
func SentinelFailover(ctx context.Context, o *ConnOptions, name string, opts ...string) (string, error) {
	addrs, err := o.sentinels()
	if err != nil {
		return "", err
	}
	var errs []string
	for _, a := range addrs {
		c, err := o.SentinelClient(a)
		if err != nil {
			return "", err
		}
		args := []any{"SENTINEL", "FAILOVER", name}
		for _, x := range opts {
			args = append(args, x)
		}
		err = c.Do(ctx, args...).Err()
		c.Close()
		if err == nil {
			return a, nil
		}
		errs = append(errs, a+": "+err.Error())
		if !isConnErr(err) {
			// INPROG, NOGOODSLAVE, unknown master: another sentinel would say the same.
			break
		}
	}
	return "", fmt.Errorf("SENTINEL FAILOVER %s %s refused: %s", name, strings.Join(opts, " "), strings.Join(errs, "; "))
}
