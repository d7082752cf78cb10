package ops

import (
	"time"

	"github.com/gosentinel/gosentinel/client"
	"github.com/redis/go-redis/v9"
)

// DrillClient is the client a drill writes through.
type DrillClient struct {
	Client *redis.Client
	Name   string // which implementation, for the report
	// PoolFlushes, when not nil, returns how many times the client
	// replaced its whole pool because the master changed.
	PoolFlushes func() int
}

// ClientFactory builds the drill client for a master name.
type ClientFactory func(master string, o *ConnOptions) (*DrillClient, error)

// Drill client timeouts: short, so that a dead master shows as failed writes
// rather than one long stall; no retries, so every failure is counted.
const (
	drillDialTimeout = 500 * time.Millisecond
	drillIOTimeout   = 500 * time.Millisecond
)

// GoRedisClientFactory builds a go-redis FailoverClient.
func GoRedisClientFactory(master string, o *ConnOptions) (*DrillClient, error) {
	tc, err := o.TLSConfig()
	if err != nil {
		return nil, err
	}
	c := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:       master,
		SentinelAddrs:    o.Sentinels,
		SentinelUsername: o.Username,
		SentinelPassword: o.Password,
		Username:         o.NodeUsername,
		Password:         o.NodePassword,
		TLSConfig:        tc,
		Protocol:         2,
		DisableIdentity:  true,
		MaxRetries:       -1,
		DialTimeout:      drillDialTimeout,
		ReadTimeout:      drillIOTimeout,
		WriteTimeout:     drillIOTimeout,
		PoolSize:         4,
	})
	return &DrillClient{Client: c, Name: "go-redis FailoverClient"}, nil
}

// GosentinelClientFactory builds this project's Sentinel-aware client
// (package client), which exposes its pool flushes.
func GosentinelClientFactory(master string, o *ConnOptions) (*DrillClient, error) {
	tc, err := o.TLSConfig()
	if err != nil {
		return nil, err
	}
	c := client.NewFailoverClient(&client.FailoverOptions{
		MasterName:        master,
		SentinelAddrs:     o.Sentinels,
		SentinelUsername:  o.Username,
		SentinelPassword:  o.Password,
		SentinelTLSConfig: tc,
		Username:          o.NodeUsername,
		Password:          o.NodePassword,
		TLSConfig:         tc,
		Protocol:          2,
		MaxRetries:        -1,
		DialTimeout:       drillDialTimeout,
		ReadTimeout:       drillIOTimeout,
		WriteTimeout:      drillIOTimeout,
		PoolSize:          4,
	})
	flushes := func() int {
		st, ok := client.StatsOf(c)
		if !ok {
			return -1
		}
		return int(st.PoolFlushes)
	}
	return &DrillClient{Client: c, Name: "gosentinel client", PoolFlushes: flushes}, nil
}

// ClientFactories maps the --client flag values to factories.
var ClientFactories = map[string]ClientFactory{
	"gosentinel": GosentinelClientFactory,
	"go-redis":   GoRedisClientFactory,
}

// DefaultClientFactory is the client drills use unless told otherwise: this
// project's client.
func DefaultClientFactory(master string, o *ConnOptions) (*DrillClient, error) {
	return GosentinelClientFactory(master, o)
}
