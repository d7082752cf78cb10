package client

import (
	"fmt"

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
	if opt.ReplicaOnly {
		want = roleSlave
	}
	o := opt.withDefaults()
	r := newResolver(o, want)
	r.invalid = validate(&o)
	rdb := redis.NewClient(dataOptions(&o, r, want))
	rdb.AddHook(hook{r})
	r.probe = rdb.WithTimeout(o.ReadTimeout)
	return rdb
}

// validate rejects the options NewFailoverClient and NewReplicaClient
// cannot honour: read routing needs NewFailoverClusterClient (go-redis's
// NewFailoverClient panics on them; this package never panics, every
// command fails with ErrInvalidOptions instead).
func validate(o *FailoverOptions) error {
	switch {
	case o.RouteByLatency:
		return fmt.Errorf("%w: RouteByLatency routes reads only with NewFailoverClusterClient (docs/client.md, \"Read routing\")", ErrInvalidOptions)
	case o.RouteRandomly:
		return fmt.Errorf("%w: RouteRandomly routes reads only with NewFailoverClusterClient (docs/client.md, \"Read routing\")", ErrInvalidOptions)
	}
	return nil
}

// dataOptions builds the go-redis options of the data connections: our
// Dialer, go-redis retries off (ours run in the hook), everything else as
// the user set it.
func dataOptions(o *FailoverOptions, r *resolver, want string) *redis.Options {
	label := "sentinel-master:" + o.MasterName
	if want == roleSlave {
		label = "sentinel-replica:" + o.MasterName
	}
	dialerRetries := o.DialerRetries
	if dialerRetries == 0 {
		dialerRetries = 1 // the Dialer has its own resolve/backoff loop
	}
	return &redis.Options{
		Addr:                         label, // a label: the Dialer ignores it
		Dialer:                       r.dial,
		DialerRetries:                dialerRetries,
		DialerRetryTimeout:           o.DialerRetryTimeout,
		DialerRetryBackoff:           o.DialerRetryBackoff,
		DialTimeout:                  o.DialTimeout,
		ReadTimeout:                  o.ReadTimeout,
		WriteTimeout:                 o.WriteTimeout,
		ContextTimeoutEnabled:        o.ContextTimeoutEnabled,
		MaxRetries:                   -1, // retries happen in our hook, idempotency-aware
		Username:                     o.Username,
		Password:                     o.Password,
		CredentialsProvider:          o.CredentialsProvider,
		CredentialsProviderContext:   o.CredentialsProviderContext,
		StreamingCredentialsProvider: o.StreamingCredentialsProvider,
		DB:                           o.DB,
		Protocol:                     o.Protocol,
		ClientName:                   o.ClientName,
		OnConnect:                    o.OnConnect,
		ReadBufferSize:               o.ReadBufferSize,
		WriteBufferSize:              o.WriteBufferSize,
		PipelineReadBufferSize:       o.PipelineReadBufferSize,
		PipelineWriteBufferSize:      o.PipelineWriteBufferSize,
		PipelinePoolSize:             o.PipelinePoolSize,
		AutoPipelineOptions:          o.AutoPipelineOptions,
		PoolFIFO:                     o.PoolFIFO,
		PoolSize:                     o.PoolSize,
		MaxConcurrentDials:           o.MaxConcurrentDials,
		MinIdleConns:                 o.MinIdleConns,
		MaxIdleConns:                 o.MaxIdleConns,
		MaxActiveConns:               o.MaxActiveConns,
		PoolTimeout:                  o.PoolTimeout,
		ConnMaxIdleTime:              o.ConnMaxIdleTime,
		ConnMaxLifetime:              o.ConnMaxLifetime,
		ConnMaxLifetimeJitter:        o.ConnMaxLifetimeJitter,
		DisableIndentity:             o.DisableIndentity,
		DisableIdentity:              o.DisableIdentity,
		IdentitySuffix:               o.IdentitySuffix,
		FailingTimeoutSeconds:        o.FailingTimeoutSeconds,
		PushNotificationProcessor:    o.PushNotificationProcessor,
		UnstableResp3:                o.UnstableResp3,
		// Carries the resolver to StatsOf through Options(), which every
		// derived client (WithTimeout) shares; passes through to the
		// user's Limiter.
		Limiter: &limiter{r: r, user: o.Limiter},
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	}
}
