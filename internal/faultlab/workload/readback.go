package workload

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// FinalRead maps a list key to the ids it holds, read from the final master
// after heal.
type FinalRead map[string][]string

// ReadBack checks that masterAddr reports role master and reads every list
// log:0 .. log:keys-1 from it.
func ReadBack(ctx context.Context, dial Dialer, masterAddr string, keys int, password string) (FinalRead, error) {
	c := redis.NewClient(&redis.Options{
		Addr: masterAddr, Dialer: dial.orDefault(), Password: password, Protocol: 2,
		MaxRetries: -1, DialTimeout: 2 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 2 * time.Second,
		PoolSize: 1, ContextTimeoutEnabled: true, DisableIdentity: true,
	})
	defer c.Close()
	role, err := c.Do(ctx, "ROLE").Slice()
	if err != nil {
		return nil, fmt.Errorf("read back from %s: ROLE: %w", masterAddr, err)
	}
	if len(role) == 0 || role[0] != "master" {
		return nil, fmt.Errorf("read back from %s: %w (ROLE %v)", masterAddr, ErrNotMaster, role)
	}
	out := FinalRead{}
	for k := 0; k < keys; k++ {
		key := "log:" + strconv.Itoa(k)
		ids, err := c.LRange(ctx, key, 0, -1).Result()
		if err != nil {
			return nil, fmt.Errorf("read back %s from %s: %w", key, masterAddr, err)
		}
		out[key] = ids
	}
	return out, nil
}

// ErrNotMaster is returned by ReadBack when the node is not a master.
var ErrNotMaster = errors.New("workload: node does not report role master")
