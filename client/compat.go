package client

import (
	"fmt"
	"reflect"

	"github.com/redis/go-redis/v9"
)

// FromGoRedis returns FailoverOptions with every field of go-redis's
// FailoverOptions copied (same names and types; see docs/client.md for the
// fields whose meaning differs). The options of this package that go-redis
// lacks keep their defaults.
func FromGoRedis(o *redis.FailoverOptions) *FailoverOptions {
	out := &FailoverOptions{}
	if o == nil {
		return out
	}
	src := reflect.ValueOf(o).Elem()
	dst := reflect.ValueOf(out).Elem()
	for i := 0; i < src.NumField(); i++ {
		f := src.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		d := dst.FieldByName(f.Name)
		if d.IsValid() && d.CanSet() && f.Type.AssignableTo(d.Type()) {
			d.Set(src.Field(i))
		} else if d.IsValid() && d.CanSet() && src.Field(i).Type().ConvertibleTo(d.Type()) {
			d.Set(src.Field(i).Convert(d.Type()))
		}
	}
	out.SentinelAddrs = append([]string(nil), o.SentinelAddrs...)
	return out
}

// ParseFailoverURL parses a URL in go-redis's ParseFailoverURL form
// (redis[s]://[user:password@]host:port[/db]?master_name=…&addr=…&…) into
// FailoverOptions, exactly as go-redis does: the host and every addr are
// sentinels, the URL's user and password become SentinelUsername and
// SentinelPassword, rediss:// sets TLSConfig (used for the sentinels too).
func ParseFailoverURL(url string) (*FailoverOptions, error) {
	o, err := redis.ParseFailoverURL(url)
	if err != nil {
		return nil, fmt.Errorf("client: parse failover URL: %w", err)
	}
	return FromGoRedis(o), nil
}

// FromUniversalOptions returns the FailoverOptions go-redis's
// NewUniversalClient would use for o (MasterName set: Addrs are the
// sentinels).
func FromUniversalOptions(o *redis.UniversalOptions) *FailoverOptions {
	if o == nil {
		return &FailoverOptions{}
	}
	return FromGoRedis(o.Failover())
}
