package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// errOnConnectRan ends the go-redis connection set-up that sentinelOnConnect
// drives once the user's OnConnect has run: the command that triggered it
// is never sent.
var errOnConnectRan = errors.New("client: OnConnect ran")

// keepOpen hands a sentinel connection to go-redis for OnConnect without
// letting go-redis close it: the connection stays ours.
type keepOpen struct{ net.Conn }

func (keepOpen) Close() error { return nil }

// sentinelOnConnect runs FailoverOptions.OnConnect on a fresh sentinel
// connection c, after its handshake (AUTH / HELLO, CLIENT SETNAME) and
// before its first query or SUBSCRIBE, as go-redis runs OnConnect on its
// sentinel connections (sentinelOptions passes OnConnect through). The
// callback gets a real *redis.Conn on c: a throwaway go-redis client whose
// Dialer returns c (which it cannot close) sets the connection up — HELLO
// with the protocol c already speaks (resp3), no credentials, no name, no
// CLIENT SETINFO —, calls OnConnect, and then is stopped by
// errOnConnectRan before the PING that triggered it is written. Nothing
// goes through the user's hooks (go-redis's sentinel clients have none
// either). No-op without OnConnect.
func (r *resolver) sentinelOnConnect(ctx context.Context, c net.Conn, resp3 bool, deadline time.Time) error {
	if r.opt.OnConnect == nil {
		return nil
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	proto := 2
	if resp3 {
		proto = 3
	}
	var handed atomic.Bool
	// The set-up may run on a goroutine of go-redis's pool: the outcome
	// comes back through ran.
	ran := make(chan error, 1)
	tmp := redis.NewClient(&redis.Options{
		Addr: c.RemoteAddr().String(),
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			if handed.Swap(true) {
				return nil, errors.New("sentinel connection already handed to OnConnect")
			}
			return keepOpen{c}, nil
		},
		Protocol:              proto,
		DisableIdentity:       true,
		MaxRetries:            -1,
		DialerRetries:         1,
		PoolSize:              1,
		ReadTimeout:           r.opt.ReadTimeout,
		WriteTimeout:          r.opt.WriteTimeout,
		ContextTimeoutEnabled: true,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error {
			ran <- r.opt.OnConnect(ctx, cn)
			return errOnConnectRan
		},
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	err := tmp.Ping(ctx).Err()
	tmp.Close()
	select {
	case userErr := <-ran:
		if userErr != nil {
			return fmt.Errorf("OnConnect: %w", userErr)
		}
		// go-redis left its deadlines on c; the next exchange sets
		// its own.
		return nil
	default:
		return fmt.Errorf("OnConnect: connection set-up: %w", err)
	}
}
