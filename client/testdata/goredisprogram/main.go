// Command goredisprogram is a program written for go-redis v9's
// FailoverOptions, setting every field. TestGoRedisProgramCompiles
// builds it as is against go-redis, then with only the import and the
// constructor changed against package client.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/auth"
	"github.com/redis/go-redis/v9/push"
)

func options(creds auth.StreamingCredentialsProvider, proc push.NotificationProcessor) *redis.FailoverOptions {
	return &redis.FailoverOptions{
		MasterName:              "mymaster",
		SentinelAddrs:           []string{"10.0.1.11:26379", "10.0.1.12:26379", "10.0.1.13:26379"},
		ClientName:              "orders-api",
		SentinelUsername:        "sentinel-user",
		SentinelPassword:        "sentinel-secret",
		RouteByLatency:          false,
		RouteByLatencyTolerance: 5 * time.Millisecond,
		RouteRandomly:           false,
		ReplicaOnly:             false,
		UseDisconnectedReplicas: false,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		OnConnect: func(ctx context.Context, cn *redis.Conn) error {
			return cn.ClientSetName(ctx, "orders-api").Err()
		},
		Protocol:            3,
		Username:            "app",
		Password:            "secret",
		CredentialsProvider: func() (string, string) { return "app", "secret" },
		CredentialsProviderContext: func(ctx context.Context) (string, string, error) {
			return "app", "secret", nil
		},
		StreamingCredentialsProvider: creds,
		DB:                           0,
		MaxRetries:                   5,
		MinRetryBackoff:              8 * time.Millisecond,
		MaxRetryBackoff:              512 * time.Millisecond,
		DialTimeout:                  2 * time.Second,
		DialerRetries:                3,
		DialerRetryTimeout:           50 * time.Millisecond,
		DialerRetryBackoff:           func(attempt int) time.Duration { return time.Duration(attempt) * 10 * time.Millisecond },
		ReadTimeout:                  time.Second,
		WriteTimeout:                 time.Second,
		ContextTimeoutEnabled:        true,
		ReadBufferSize:               64 << 10,
		WriteBufferSize:              64 << 10,
		PipelineReadBufferSize:       256 << 10,
		PipelineWriteBufferSize:      256 << 10,
		PipelinePoolSize:             4,
		AutoPipelineOptions:          &redis.AutoPipelineOptions{MaxBatchSize: 50},
		PoolFIFO:                     true,
		PoolSize:                     32,
		MaxConcurrentDials:           8,
		PoolTimeout:                  2 * time.Second,
		MinIdleConns:                 2,
		MaxIdleConns:                 8,
		MaxActiveConns:               64,
		ConnMaxIdleTime:              5 * time.Minute,
		ConnMaxLifetime:              time.Hour,
		ConnMaxLifetimeJitter:        time.Minute,
		TLSConfig:                    &tls.Config{MinVersion: tls.VersionTLS12},
		DisableIndentity:             false,
		DisableIdentity:              false,
		IdentitySuffix:               "orders",
		FailingTimeoutSeconds:        15,
		UnstableResp3:                false,
		PushNotificationProcessor:    proc,
	}
}

func main() {
	rdb := redis.NewFailoverClient(options(nil, nil))
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := rdb.Set(ctx, "order:1", "paid", 0).Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}
