package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gosentinel/gosentinel/client"
	"github.com/redis/go-redis/v9"
)

// A drop-in replacement for redis.NewFailoverClient: the result is a plain
// *redis.Client.
func ExampleNewFailoverClient() {
	rdb := client.NewFailoverClient(&client.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: []string{"10.0.1.11:26379", "10.0.1.12:26379", "10.0.1.13:26379"},
		Password:      "data-node-secret",
		OnMasterChange: func(old, new string) {
			fmt.Printf("master moved from %s to %s\n", old, new)
		},
	})
	defer rdb.Close() // also stops the sentinel subscription

	ctx := context.Background()
	if err := rdb.Set(ctx, "greeting", "hello", 0).Err(); err != nil {
		switch {
		case errors.Is(err, client.ErrNoSentinelReachable):
			fmt.Println("check the sentinel addresses / network")
		case errors.Is(err, client.ErrMasterNotFound):
			fmt.Println("check MasterName")
		default:
			fmt.Println("write failed:", err)
		}
		return
	}
	if st, ok := client.StatsOf(rdb); ok {
		fmt.Println("master:", st.CurrentAddr, "failovers seen:", st.MasterChanges)
	}
}

// The two discovery failures of the Sentinel client guidelines are distinct
// errors.
func Example_errors() {
	rdb := client.NewFailoverClient(&client.FailoverOptions{
		MasterName:      "mymaster",
		SentinelAddrs:   []string{"127.0.0.1:1"}, // nothing listens on port 1
		SentinelTimeout: 200 * time.Millisecond,
	})
	defer rdb.Close()
	err := rdb.Ping(context.Background()).Err()
	fmt.Println("no sentinel reachable:", errors.Is(err, client.ErrNoSentinelReachable))
	fmt.Println("master unknown:", errors.Is(err, client.ErrMasterNotFound))
	var de *client.DiscoveryError
	if errors.As(err, &de) {
		var se *client.SentinelError
		fmt.Println("kind:", de.Kind, "| master:", de.Master, "| attempts:", len(de.Attempts))
		fmt.Println("first attempt names its sentinel:", errors.As(de.Attempts[0], &se) && se.Addr == "127.0.0.1:1")
	}
	// Output:
	// no sentinel reachable: true
	// master unknown: false
	// kind: client: no sentinel reachable | master: mymaster | attempts: 1
	// first attempt names its sentinel: true
}

// Read routing options need NewFailoverClusterClient: given to
// NewFailoverClient, every command fails with ErrInvalidOptions (go-redis
// panics), without contacting a sentinel.
func ExampleFailoverOptions_routeByLatency() {
	rdb := client.NewFailoverClient(&client.FailoverOptions{
		MasterName:     "mymaster",
		SentinelAddrs:  []string{"10.0.1.11:26379"},
		RouteByLatency: true,
	})
	defer rdb.Close()
	err := rdb.Get(context.Background(), "k").Err()
	fmt.Println(errors.Is(err, client.ErrInvalidOptions))
	st, _ := client.StatsOf(rdb)
	fmt.Println("sentinel dials:", st.SentinelDials)
	// Output:
	// true
	// sentinel dials: 0
}

// Read scaling through verified replicas.
func ExampleNewReplicaClient() {
	ro := client.NewReplicaClient(&client.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: []string{"10.0.1.11:26379", "10.0.1.12:26379"},
	})
	defer ro.Close()
	v, err := ro.Get(context.Background(), "greeting").Result()
	fmt.Println(v, err)
}

// go-redis's failover URL form: the host and every addr are sentinels.
func ExampleParseFailoverURL() {
	opt, err := client.ParseFailoverURL("redis://:sentinel-secret@10.0.1.11:26379/0?master_name=mymaster&addr=10.0.1.12:26379&dial_timeout=3")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(opt.MasterName, opt.SentinelAddrs, opt.SentinelPassword, opt.DialTimeout)
	// Output:
	// mymaster [10.0.1.11:26379 10.0.1.12:26379] sentinel-secret 3s
}

// Options written for go-redis's NewUniversalClient (MasterName set).
func ExampleFromUniversalOptions() {
	opt := client.FromUniversalOptions(&redis.UniversalOptions{
		MasterName: "mymaster",
		Addrs:      []string{"10.0.1.11:26379", "10.0.1.12:26379"},
		Password:   "data-node-secret",
	})
	fmt.Println(opt.MasterName, opt.SentinelAddrs, opt.Password)
	// Output:
	// mymaster [10.0.1.11:26379 10.0.1.12:26379] data-node-secret
}

// FailFast: commands fail at once with ErrFailoverInProgress while no
// master is known, instead of waiting up to DialTimeout.
func ExampleFailoverOptions_failFast() {
	opt := &client.FailoverOptions{MasterName: "mymaster", SentinelAddrs: []string{"10.0.1.11:26379"}, FailFast: true}
	fmt.Println(opt.FailFast, client.ErrFailoverInProgress)
	// Output:
	// true client: no master known (failover in progress)
}

// StatsOf finds the counters of a client built here, of any client
// derived from it, and still after Close; for any other client ok is
// false. Nothing is resolved before the first command.
func ExampleStatsOf() {
	rdb := client.NewFailoverClient(&client.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: []string{"10.0.1.11:26379"},
	})
	st, ok := client.StatsOf(rdb.WithTimeout(time.Second))
	fmt.Printf("ours: %v, resolutions %d, master %q, label %s\n", ok, st.Resolutions, st.CurrentAddr, rdb.Options().Addr)
	rdb.Close()
	_, ok = client.StatsOf(rdb)
	fmt.Println("after Close:", ok)
	plain := redis.NewClient(&redis.Options{Addr: "10.0.1.21:6379"})
	defer plain.Close()
	_, ok = client.StatsOf(plain)
	fmt.Println("plain go-redis client:", ok)
	// Output:
	// ours: true, resolutions 0, master "", label sentinel-master:mymaster
	// after Close: true
	// plain go-redis client: false
}

// A discovery failure is a *DiscoveryError: its Kind is one of the
// exported errors, its Attempts say what each sentinel answered.
func ExampleDiscoveryError() {
	rdb := client.NewFailoverClient(&client.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: []string{"127.0.0.1:1"}, // nothing listens on port 1
	})
	defer rdb.Close()
	err := rdb.Ping(context.Background()).Err()
	var de *client.DiscoveryError
	var se *client.SentinelError
	if errors.As(err, &de) && errors.As(err, &se) {
		fmt.Println(de.Kind, "/", de.Master, "/ sentinel", se.Addr)
	}
	// Output:
	// client: no sentinel reachable / mymaster / sentinel 127.0.0.1:1
}

// The advertised address did not report the expected role.
func ExampleRoleError() {
	var err error = &client.RoleError{Addr: "10.0.1.21:6379", Want: "master", Got: "slave"}
	fmt.Println(err)
	fmt.Println(errors.Is(err, client.ErrRoleMismatch))
	// Output:
	// 10.0.1.21:6379 has role "slave", want "master"
	// true
}

// Options written for go-redis's NewFailoverClient convert field by field.
func ExampleFromGoRedis() {
	opt := client.FromGoRedis(&redis.FailoverOptions{
		MasterName:       "mymaster",
		SentinelAddrs:    []string{"10.0.1.11:26379"},
		SentinelPassword: "sentinel-secret",
		MaxRetries:       -1,
	})
	fmt.Println(opt.MasterName, opt.SentinelAddrs, opt.SentinelPassword, opt.MaxRetries)
	// Output:
	// mymaster [10.0.1.11:26379] sentinel-secret -1
}
