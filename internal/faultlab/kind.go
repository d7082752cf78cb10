package faultlab

import (
	"fmt"
	"strings"
)

// Kind says which sentinel implementation runs on which host.
type Kind string

// The sentinel kinds.
const (
	// KindRedis is Debian's redis-sentinel on every sentinel host.
	KindRedis Kind = "redis"
	// KindGosentinel is gosentinel, built from this tree, on every host.
	KindGosentinel Kind = "gosentinel"
	// KindMixedGo1 is gosentinel on the first sentinel host, redis-sentinel elsewhere.
	KindMixedGo1 Kind = "mixed-go1"
	// KindMixedRedis1 is redis-sentinel on the first sentinel host, gosentinel elsewhere.
	KindMixedRedis1 Kind = "mixed-redis1"
	// KindValkey is valkey-sentinel 8 on every sentinel host, with
	// valkey-server as the data nodes.
	KindValkey Kind = "valkey"
	// KindGoValkey is gosentinel on every sentinel host with valkey-server
	// as the data nodes (the valkey row's comparison).
	KindGoValkey Kind = "go-valkey"
	// KindMixedVkGo1 is gosentinel on the first sentinel host and
	// valkey-sentinel elsewhere, with valkey-server as the data nodes.
	KindMixedVkGo1 Kind = "mixed-vk-go1"
)

// ErrBadKind is returned by ParseKinds for an unknown sentinel kind.
var ErrBadKind = fmt.Errorf("faultlab: unknown sentinel kind (want gosentinel, redis, mixed, valkey, go-valkey, mixed-vk-go1 or all)")

// ParseKinds turns a --sentinel value (a comma-separated list of
// gosentinel, redis, mixed, mixed-go1, mixed-redis1, all) into kinds.
// "mixed" is both mixed kinds; "all" is redis, gosentinel and both mixes.
func ParseKinds(s string) ([]Kind, error) {
	var out []Kind
	seen := map[Kind]bool{}
	add := func(ks ...Kind) {
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	for _, w := range strings.Split(s, ",") {
		switch strings.TrimSpace(w) {
		case "redis", "redis-sentinel":
			add(KindRedis)
		case "gosentinel", "go":
			add(KindGosentinel)
		case "mixed":
			add(KindMixedGo1, KindMixedRedis1)
		case string(KindMixedGo1):
			add(KindMixedGo1)
		case string(KindMixedRedis1):
			add(KindMixedRedis1)
		case "valkey", "valkey-sentinel":
			add(KindValkey)
		case string(KindGoValkey):
			add(KindGoValkey)
		case string(KindMixedVkGo1), "mixed-valkey":
			add(KindMixedVkGo1)
		case "all":
			add(KindRedis, KindGosentinel, KindMixedGo1, KindMixedRedis1)
		default:
			return nil, fmt.Errorf("%q: %w", w, ErrBadKind)
		}
	}
	return out, nil
}

// goOn reports whether the i-th sentinel host (0-based) runs gosentinel.
func (k Kind) goOn(i int) bool {
	switch k {
	case KindGosentinel, KindGoValkey:
		return true
	case KindMixedGo1, KindMixedVkGo1:
		return i == 0
	case KindMixedRedis1:
		return i != 0
	}
	return false
}

// mixed reports whether k mixes both implementations.
func (k Kind) mixed() bool {
	return k == KindMixedGo1 || k == KindMixedRedis1 || k == KindMixedVkGo1
}

// valkey reports whether k runs valkey-server data nodes (and
// valkey-sentinel where it does not run gosentinel).
func (k Kind) valkey() bool { return k == KindValkey || k == KindGoValkey || k == KindMixedVkGo1 }

// baseline is the kind k is compared with: valkey for the valkey kinds,
// redis otherwise.
func (k Kind) baseline() Kind {
	if k.valkey() {
		return KindValkey
	}
	return KindRedis
}
