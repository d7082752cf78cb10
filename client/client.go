package client

import (
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// NewFailoverClient returns a go-redis client whose connections go to the
// master that the sentinels advertise for opt.MasterName, verified with
// ROLE. It never panics: missing options surface as errors from commands
// (ErrNoSentinelReachable without sentinels, ErrMasterNotFound for an
// unknown name). Closing the client also stops its background goroutine
// and sentinel connections.
func NewFailoverClient(opt *FailoverOptions) *redis.Client {
	return newClient(opt, roleMaster)
}

// NewReplicaClient returns a go-redis client for read scaling: each new
// connection goes to a replica listed by SENTINEL REPLICAS that is not
// s_down, o_down or disconnected (master-link-status ok preferred, random
// among equals) and that reports ROLE slave. It fails with
// ErrNoReplicaAvailable rather than falling back to the master.
func NewReplicaClient(opt *FailoverOptions) *redis.Client {
	return newClient(opt, roleSlave)
}

func newClient(opt *FailoverOptions, want string) *redis.Client {
	if opt == nil {
		opt = &FailoverOptions{}
	}
	o := opt.withDefaults()
	r := newResolver(o, want)
	label := "sentinel-master:" + o.MasterName
	if want == roleSlave {
		label = "sentinel-replica:" + o.MasterName
	}
	rdb := redis.NewClient(&redis.Options{
		Addr:            label, // a label: the Dialer ignores it
		Dialer:          r.dial,
		DialerRetries:   1, // the Dialer has its own resolve/backoff loop
		DialTimeout:     o.DialTimeout,
		ReadTimeout:     o.ReadTimeout,
		WriteTimeout:    o.WriteTimeout,
		MaxRetries:      -1, // retries happen in our hook, idempotency-aware
		Username:        o.Username,
		Password:        o.Password,
		DB:              o.DB,
		Protocol:        o.Protocol,
		ClientName:      o.ClientName,
		OnConnect:       o.OnConnect,
		PoolSize:        o.PoolSize,
		MinIdleConns:    o.MinIdleConns,
		MaxIdleConns:    o.MaxIdleConns,
		PoolTimeout:     o.PoolTimeout,
		ConnMaxIdleTime: o.ConnMaxIdleTime,
		ConnMaxLifetime: o.ConnMaxLifetime,
		// Carries the resolver to StatsOf through Options(), which every
		// derived client (WithTimeout) shares; passes through to the
		// user's Limiter.
		Limiter: &limiter{r: r, user: o.Limiter},
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	})
	rdb.AddHook(hook{r})
	r.probe = rdb.WithTimeout(o.ReadTimeout)
	return rdb
}
